def harmonic(n):
    if n < 0:
        raise ValueError("n must be non-negative")
    total = 0.0
    for k in range(1, n + 1):
        total += 1.0 / k
    return total
