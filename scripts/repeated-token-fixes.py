#!/usr/bin/env python3
"""Does a developer who replaces a token that occurs more than once on a line change every
occurrence, or one? (Issue 32: whether a plausible single-site edit should be retried at every
site of the same token, as the developer did on one development bug.)

A pair counts when its buggy and fixed Java snippets differ on exactly one line, that line
keeps its token count, every changed token is the same substitution `x` -> `y`, and `x`
occurs at least twice on the line. Prints how many changed all occurrences, one, or several
but not all, by kind of token (a called name, another name, a literal, an operator).
QuixBugs, Defects4J, BugsInPy and CodeXGLUE are never read.

    python3 scripts/repeated-token-fixes.py [SHARED]          (default ../shared)
"""
import collections
import sys

from training_corpora import java_rows

TOKEN = __import__("re").compile(
    r"[A-Za-z_][A-Za-z_0-9]*|\d+(?:\.\d+)?|\"(?:[^\"\\]|\\.)*\"|==|!=|<=|>=|&&|\|\||\S")


def kind(a, diff, x):
    if all(i + 1 < len(a) and a[i + 1] == "(" for i in diff):
        return "called name"
    if x[0].isalpha() or x[0] == "_":
        return "other name"
    return "literal" if x[0].isdigit() or x[0] == '"' else "operator"


def main():
    shared = sys.argv[1] if len(sys.argv) > 1 else "../shared"
    counts = collections.Counter()
    for row in java_rows(shared):
        old, new = row["buggy_code"].split("\n"), row["fixed_code"].split("\n")
        if len(old) != len(new):
            continue
        changed = [n for n, (p, q) in enumerate(zip(old, new)) if p != q]
        if len(changed) != 1:
            continue
        a, b = TOKEN.findall(old[changed[0]]), TOKEN.findall(new[changed[0]])
        if len(a) != len(b):
            continue
        diff = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
        subs = {(a[i], b[i]) for i in diff}
        if len(subs) != 1:
            continue
        x = next(iter(subs))[0]
        # A called name's sites are its calls (`lock.lock()`: one call of `lock`).
        call = all(i + 1 < len(a) and a[i + 1] == "(" for i in diff)
        sites = sum(1 for i, t in enumerate(a) if t == x and (not call or (i + 1 < len(a) and a[i + 1] == "(")))
        if sites < 2:
            continue
        changed_sites = "all" if len(diff) == sites else ("one" if len(diff) == 1 else "several, not all")
        counts[(kind(a, diff, x), changed_sites)] += 1
    total = sum(counts.values())
    print(f"one-line substitutions of a token that occurs 2+ times on the line: {total}")
    for what in ["all", "one", "several, not all"]:
        n = sum(v for (k, w), v in counts.items() if w == what)
        print(f"  {what}: {n} ({100 * n / total:.0f} %)")
    for k in sorted({k for k, _ in counts}):
        parts = ", ".join(f"{w} {counts[(k, w)]}" for w in ["all", "one", "several, not all"] if counts[(k, w)])
        print(f"    {k}: {parts}")


if __name__ == "__main__":
    main()
