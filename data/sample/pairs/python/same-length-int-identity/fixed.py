def check_same_length(a, b):
    a, b = list(a), list(b)
    if len(a) != len(b):
        raise ValueError(f"length mismatch: {len(a)} != {len(b)}")
    return list(zip(a, b))
