#!/usr/bin/env python3
"""How developers change a called method's name, on the shared corpus (issue 32; the
figures in repair/src/strategies/patterns/templates/project.rs).

A pair counts when its buggy and fixed Java snippets have the same tokens but one, and that
one is a name followed by `(` (a call: `x.m(a)` -> `x.n(a)`, `m(a)` -> `n(a)`). For those
it prints how many call a name the buggy snippet never mentions (what a template drawing on
the file's names alone cannot make), and, of those, how many share a camel-case word or their
first three characters with the replaced name (the `close` rule of the method template).
QuixBugs, Defects4J, BugsInPy and CodeXGLUE are never read.

    python3 scripts/method-names.py [SHARED]          (default ../shared)
"""
import collections
import re
import sys

from training_corpora import java_rows

TOKEN = re.compile(r"[A-Za-z_][A-Za-z_0-9]*|\d+|\S")


def words(name):
    return {w.lower() for w in re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", name)}


def prefix(a, b):
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def main():
    shared = sys.argv[1] if len(sys.argv) > 1 else "../shared"
    calls = collections.Counter()
    close = collections.Counter()
    for row in java_rows(shared):
        a, b = TOKEN.findall(row["buggy_code"]), TOKEN.findall(row["fixed_code"])
        if len(a) != len(b):
            continue
        diff = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
        if len(diff) != 1:
            continue
        i = diff[0]
        if not (a[i][0].isalpha() or a[i][0] == "_") or not (b[i][0].isalpha() or b[i][0] == "_"):
            continue
        if i + 1 >= len(a) or a[i + 1] != "(":
            continue
        new = b[i] not in a
        calls["new name" if new else "name in the snippet"] += 1
        if new:
            kind = "share a word" if words(a[i]) & words(b[i]) else (
                "share 3 first characters" if prefix(a[i], b[i]) >= 3 else "neither")
            close[kind] += 1
    total = sum(calls.values())
    print(f"single-token method-name fixes: {total}")
    for k, v in calls.most_common():
        print(f"  {k}: {v} ({100 * v / total:.0f} %)")
    n = sum(close.values())
    print(f"of the {n} with a new name:")
    for k, v in close.most_common():
        print(f"  {k}: {v} ({100 * v / n:.0f} %)")


if __name__ == "__main__":
    main()
