#!/usr/bin/env python3
"""How often does a developer fix a Java bug by changing one jump statement into another, or by
inserting one? (Issue 32: the evidence for the patterns strategy's `MUTATE_JUMP` template,
repair/src/strategies/patterns/templates/statements.rs, and `INSERT_MISSED_JUMP`, calls.rs;
TBar has no such pattern.)

A pair counts when its buggy and fixed Java snippets, comment and blank lines aside, differ in
one hunk (difflib) that replaces one line by one line or inserts one line. Counted: `break;` <->
`continue;`, `break;`/`continue;` -> `return ...;`, `return D;` <-> `throw new E(...);` (D a
default: null, 0, -1, false, true, ""), and an inserted `break;`, `continue;` or `return ...;`.
For scale, the one-token substitutions (the simple-stupid-bug kind) of the same hunks are
counted too. QuixBugs, Defects4J, BugsInPy and CodeXGLUE are never read.

    python3 scripts/jump-fixes.py [SHARED]          (default ../shared)
"""
import collections
import difflib
import re
import sys

from training_corpora import java_rows

TOKEN = re.compile(r"[A-Za-z_][A-Za-z_0-9]*|\d+(?:\.\d+)?|\"(?:[^\"\\]|\\.)*\"|==|!=|<=|>=|&&|\|\||\S")
DEFAULT_RETURN = re.compile(r"return\s*(null|0|-1|false|true|\"\"|0L|0\.0)?\s*;")
THROW = re.compile(r"throw\s+new\s+\w+.*")
RETURN = re.compile(r"return\b.*;")


def code_lines(snippet):
    return [l.strip() for l in snippet.split("\n") if l.strip() and not l.strip().startswith(("//", "*", "/*"))]


def kind(tag, old, new):
    """The jump edit a one-hunk change makes, or None."""
    if tag == "insert" and len(new) == 1 and (new[0] in ("break;", "continue;") or RETURN.fullmatch(new[0])):
        return "insert " + new[0].split()[0].rstrip(";")
    if tag != "replace" or len(old) != 1 or len(new) != 1:
        return None
    a, b = old[0], new[0]
    if {a, b} == {"break;", "continue;"}:
        return "break <-> continue"
    if a in ("break;", "continue;") and RETURN.fullmatch(b):
        return "break/continue -> return"
    if DEFAULT_RETURN.fullmatch(a) and THROW.fullmatch(b):
        return "return default -> throw"
    if THROW.fullmatch(a) and DEFAULT_RETURN.fullmatch(b):
        return "throw -> return default"
    ta, tb = TOKEN.findall(a), TOKEN.findall(b)
    if len(ta) == len(tb) and sum(x != y for x, y in zip(ta, tb)) == 1:
        return "(for scale) one-token substitution"
    return None


def main():
    shared = sys.argv[1] if len(sys.argv) > 1 else "../shared"
    counts = collections.Counter()
    hunks = 0
    for row in java_rows(shared):
        a, b = code_lines(row["buggy_code"]), code_lines(row["fixed_code"])
        ops = [o for o in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if o[0] != "equal"]
        if len(ops) != 1:
            continue
        hunks += 1
        tag, i1, i2, j1, j2 = ops[0]
        k = kind(tag, a[i1:i2], b[j1:j2])
        if k:
            counts[k] += 1
    print(f"one-hunk Java fixes: {hunks}")
    for k, v in sorted(counts.items(), key=lambda kv: (kv[0].startswith("("), -kv[1])):
        print(f"  {v:6d}  {k}")


if __name__ == "__main__":
    main()
