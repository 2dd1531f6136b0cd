"""The buggy lines a fix changes, from a line diff buggy -> fixed (used by
window-compare.py and self-retrieval.py)."""
import difflib


def changed_span(buggy, fixed):
    """0-based inclusive span of buggy lines the fix deletes or replaces (insertions: the
    lines on either side), or None when the fix changes no line."""
    lines = buggy.splitlines()
    sm = difflib.SequenceMatcher(None, lines, fixed.splitlines(), autojunk=False)
    span = None
    for tag, i1, i2, _, _ in sm.get_opcodes():
        if tag == "equal":
            continue
        a, z = (i1, i2 - 1) if tag in ("replace", "delete") else (max(i1 - 1, 0), min(i1, len(lines) - 1))
        span = (a, z) if span is None else (min(span[0], a), max(span[1], z))
    return span
