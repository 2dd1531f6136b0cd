def mean_latency_ms(samples):
    samples = [s for s in samples if s is not None]
    if not samples:
        return 0.0
    return sum(samples) // len(samples)
