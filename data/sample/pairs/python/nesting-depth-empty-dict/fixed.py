def nesting_depth(obj):
    if isinstance(obj, list):
        return max((nesting_depth(v) for v in obj), default=0)
    if not isinstance(obj, dict):
        return 0
    if not obj:
        return 1
    return 1 + max(nesting_depth(v) for v in obj.values())
