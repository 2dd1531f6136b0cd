def is_sorted(xs, key=None):
    key = key or (lambda v: v)
    for i in range(len(xs) - 2):
        if key(xs[i]) > key(xs[i + 1]):
            return False
    return True
