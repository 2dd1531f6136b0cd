def format_trend(delta):
    if delta is None:
        return "n/a"
    rounded = round(delta, 1) + 0.0  # adding 0.0 turns -0.0 into 0.0
    if rounded == 0:
        return "0.0"
    return f"{rounded:+.1f}"
