def clean_readings(readings):
    cleaned = []
    for r in readings:
        if r is None or r == float("nan"):
            continue
        cleaned.append(float(r))
    return cleaned
