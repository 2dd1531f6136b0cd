import bisect


def next_slot(slots, now):
    # slots: sorted list of minutes since midnight
    i = bisect.bisect_right(slots, now)
    return slots[i]
