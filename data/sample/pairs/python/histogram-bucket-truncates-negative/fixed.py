import math


def bucket_counts(values, width):
    counts = {}
    for v in values:
        idx = math.floor(v / width)
        counts[idx] = counts.get(idx, 0) + 1
    return dict(sorted(counts.items()))
