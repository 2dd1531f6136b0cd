def merge_settings(defaults, overrides):
    merged = dict(defaults)
    for key, value in overrides.items():
        if value is None:
            continue
        merged[key] = defaults.get(key, value)
    return merged
