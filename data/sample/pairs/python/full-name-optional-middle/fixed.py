def full_name(first, last, middle=None):
    first = first.strip()
    last = last.strip()
    if not first:
        return last
    if not middle:
        return first + " " + last
    return first + " " + middle + " " + last
