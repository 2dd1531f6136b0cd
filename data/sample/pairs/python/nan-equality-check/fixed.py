import math


def clean_readings(readings):
    cleaned = []
    for r in readings:
        if r is None or math.isnan(r):
            continue
        cleaned.append(float(r))
    return cleaned
