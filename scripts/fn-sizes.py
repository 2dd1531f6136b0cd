#!/usr/bin/env python3
"""Rust function lengths: median, p90, max, and every function over a limit.

A function's length is its lines from the `fn` line to its closing brace, inclusive.
Functions without a body (trait declarations) and everything inside `#[cfg(test)]` modules
are skipped; nested `fn` items count on their own (and in their parent's lines).

Usage: scripts/fn-sizes.py [--over N] [--json] PATH...
  PATH    Rust files or folders (searched for *.rs, skipping target/)
  --over  list the functions longer than N lines [default: 60]
  --json  one JSON object: count, median, p90, max, over (file, line, name, lines)

Standard library only. Comments, strings, raw strings and char literals are blanked before
braces are counted, so a `{` in a string or comment does not confuse it.
"""

import argparse
import json
import os
import re
import statistics
import sys

FN = re.compile(
    r"^[ \t]*(?:pub(?:\([^)]*\))?[ \t]+)?(?:default[ \t]+)?(?:const[ \t]+)?(?:async[ \t]+)?"
    r"(?:unsafe[ \t]+)?(?:extern[ \t]+(?:\"[^\"]*\"[ \t]+)?)?fn[ \t]+(\w+)",
    re.M,
)
CFG_TEST_MOD = re.compile(r"#\[cfg\(test\)\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*([{;])")


def blank(src):
    """`src` with comments and the insides of string and char literals replaced by spaces
    (newlines kept, so offsets and line numbers stay the same)."""
    out = list(src)
    i, n = 0, len(src)

    def wipe(a, b):
        for k in range(a, min(b, n)):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            wipe(i, j)
            i = j
        elif src.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            wipe(i, j)
            i = j
        elif (m := re.compile(r'b?r(#*)"').match(src, i)) and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")):
            end = '"' + m.group(1)
            j = src.find(end, m.end())
            j = n if j < 0 else j + len(end)
            wipe(m.end(), j - len(end))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            wipe(i + 1, j)
            i = j + 1
        elif c == "'":
            if i + 1 < n and src[i + 1] == "\\":
                j = src.find("'", i + 2)
                j = n if j < 0 else j
                wipe(i + 1, j)
                i = j + 1
            elif i + 2 < n and src[i + 2] == "'":
                wipe(i + 1, i + 2)
                i += 3
            else:
                i += 1  # a lifetime
        else:
            i += 1
    return "".join(out)


def matching(code, open_at):
    """Offset of the `}` closing the `{` at `open_at`, or len(code)."""
    depth = 0
    for k in range(open_at, len(code)):
        if code[k] == "{":
            depth += 1
        elif code[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    return len(code)


def test_spans(code):
    """(start, end) offsets of `#[cfg(test)]` modules (inline or `mod x;`)."""
    spans = []
    for m in CFG_TEST_MOD.finditer(code):
        end = matching(code, m.end(1) - 1) if m.group(1) == "{" else m.end(1)
        spans.append((m.start(), end))
    return spans


def functions(path):
    """(name, first line, lines) of every function with a body in the file at `path`."""
    with open(path, encoding="utf-8", errors="replace") as f:
        code = blank(f.read())
    skip = test_spans(code)
    found = []
    for m in FN.finditer(code):
        if any(a <= m.start() < b for a, b in skip):
            continue
        # The body opens at the first `{` outside parentheses, brackets and angle brackets of
        # the signature; a `;` first means a declaration without a body.
        depth, k = 0, m.end()
        while k < len(code):
            ch = code[k]
            if ch in "([":
                depth += 1
            elif ch in ")]":
                depth -= 1
            elif depth == 0 and ch in "{;":
                break
            k += 1
        if k >= len(code) or code[k] == ";":
            continue
        end = matching(code, k)
        first = code.count("\n", 0, m.start()) + 1
        last = code.count("\n", 0, end) + 1
        found.append((m.group(1), first, last - first + 1))
    return found


def rust_files(paths):
    for p in paths:
        if os.path.isfile(p):
            yield p
            continue
        for root, dirs, files in os.walk(p):
            dirs[:] = sorted(d for d in dirs if d not in ("target", ".git"))
            for name in sorted(files):
                if name.endswith(".rs"):
                    yield os.path.join(root, name)


def percentile(sorted_values, q):
    """Nearest-rank percentile (q in [0, 100]) of a sorted list."""
    if not sorted_values:
        return 0
    rank = max(1, -(-q * len(sorted_values) // 100))
    return sorted_values[int(rank) - 1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", metavar="PATH", help="Rust files or folders to measure")
    ap.add_argument("--over", type=int, default=60, metavar="N", help="list the functions longer than N lines")
    ap.add_argument("--json", action="store_true", help="one JSON object instead of the text summary")
    a = ap.parse_args()
    missing = [p for p in a.paths if not os.path.exists(p)]
    if missing:
        ap.error(f"no such file or folder: {', '.join(missing)}")
    if a.over < 0:
        ap.error("--over must be at least 0")
    rows = [(f, name, line, n) for f in rust_files(a.paths) for name, line, n in functions(f)]
    sizes = sorted(n for *_, n in rows)
    over = sorted((r for r in rows if r[3] > a.over), key=lambda r: -r[3])
    summary = {
        "count": len(sizes),
        "median": statistics.median(sizes) if sizes else 0,
        "p90": percentile(sizes, 90),
        "max": sizes[-1] if sizes else 0,
        "over_limit": a.over,
        "over": [{"file": f, "line": line, "name": name, "lines": n} for f, name, line, n in over],
    }
    if a.json:
        print(json.dumps(summary))
        return 0
    print(f"{summary['count']} functions, lines each: median {summary['median']:g}, p90 {summary['p90']}, "
          f"max {summary['max']}")
    print(f"over {a.over} lines: {len(over)}")
    for f, name, line, n in over:
        print(f"  {n:>4}  {f}:{line}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
