def full_name(first, last, middle=None):
    first = first.strip()
    last = last.strip()
    if not first:
        return last
    return first + " " + middle + " " + last
