def format_trend(delta):
    if delta is None:
        return "n/a"
    if delta == 0:
        return "0.0"
    return f"{delta:+.1f}"
