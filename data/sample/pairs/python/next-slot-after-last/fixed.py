import bisect


def next_slot(slots, now):
    # slots: sorted list of minutes since midnight
    if not slots:
        return None
    i = bisect.bisect_right(slots, now)
    if i == len(slots):
        return slots[0] + 24 * 60
    return slots[i]
