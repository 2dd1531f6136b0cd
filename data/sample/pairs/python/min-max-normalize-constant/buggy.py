def min_max_normalize(values):
    values = [float(v) for v in values]
    lo = min(values)
    hi = max(values)
    return [(v - lo) / (hi - lo) for v in values]
