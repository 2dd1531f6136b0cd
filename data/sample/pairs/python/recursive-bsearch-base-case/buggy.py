def bsearch(xs, target, lo=0, hi=None):
    if hi is None:
        hi = len(xs) - 1
    if lo == hi:
        return -1
    mid = (lo + hi) // 2
    if xs[mid] == target:
        return mid
    if xs[mid] < target:
        return bsearch(xs, target, mid + 1, hi)
    return bsearch(xs, target, lo, mid - 1)
