#!/usr/bin/env python3
"""Which one-line Java fixes do the patterns strategy's templates not make, by edit shape? (Issue
32: how the negation, offset, equality and dropped-call templates were chosen.)

Reads the training corpora (scripts/training_corpora.py: no benchmark is read) and the output of
`repair/examples/patterns_order.rs` on the same split (the pairs one template edit fixes), keeps
the Java pairs in split K/M (FNV-1a of the id, as the examples split) whose buggy and fixed
snippets differ in exactly one line, and prints the most frequent token-level shapes of the
unfixed ones (identifiers as ID, numbers as NUM, strings as STR), each with an example.

    cargo run --release --workspace --example patterns_order -- --split 0/5 \\
        ../shared/data/{manysstubs4j,mined_git_history,gitbug_java,condefects}.jsonl > split0.jsonl
    python3 scripts/one-line-gaps.py split0.jsonl [--split 0/5] [--top 40] [--shared ../shared]
        [--show 'insert:[]->[+ NUM]']
"""
import argparse
import collections
import difflib
import json
import re

from training_corpora import java_rows

TOKEN = re.compile(r'[A-Za-z_]\w*|\d+(?:\.\d+)?[lLfFdD]?|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|==|!=|<=|>=|&&|\|\||\+\+|--|\S')
KEYWORDS = set("if else for while return new null true false this throw break continue try catch final int long "
               "double float boolean char byte short void instanceof super static".split())


def fnv(s):
    h = 0xcbf29ce484222325
    for b in s.encode():
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def abstract(t):
    if t in KEYWORDS:
        return t
    if t[0].isalpha() or t[0] == "_":
        return "ID"
    if t[0].isdigit():
        return "NUM"
    return "STR" if t[0] in "\"'" else t


def shape(old, new):
    """The token hunks turning line `old` into `new`, abstracted; None beyond two hunks."""
    x, y = TOKEN.findall(old), TOKEN.findall(new)
    ops = [o for o in difflib.SequenceMatcher(None, x, y, autojunk=False).get_opcodes() if o[0] != "equal"]
    if len(ops) > 2:
        return "(3+ token hunks)"
    return " | ".join(f"{t}:[{' '.join(map(abstract, x[a:b]))}]->[{' '.join(map(abstract, y[c:d]))}]"
                      for t, a, b, c, d in ops)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("fixed", help="patterns_order output (JSONL) on the same split")
    ap.add_argument("--split", default="0/5")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--shared", default="../shared")
    ap.add_argument("--show", metavar="SHAPE", help="print every unfixed pair of this shape instead")
    a = ap.parse_args()
    k, m = map(int, a.split.split("/"))
    fixed = {json.loads(line)["id"] for line in open(a.fixed, encoding="utf-8")}
    shapes, examples = collections.Counter(), {}
    total = made = 0
    for row in java_rows(a.shared):
        if fnv(row["id"]) % m != k:
            continue
        old, new = row["buggy_code"].split("\n"), row["fixed_code"].split("\n")
        ops = [o for o in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes() if o[0] != "equal"]
        if len(ops) != 1 or ops[0][0] != "replace" or ops[0][2] - ops[0][1] != 1 or ops[0][4] - ops[0][3] != 1:
            continue
        total += 1
        if row["id"] in fixed:
            made += 1
            continue
        s = shape(old[ops[0][1]], new[ops[0][3]])
        if a.show == s:
            print(f"{row['id']}\n  - {old[ops[0][1]].strip()}\n  + {new[ops[0][3]].strip()}")
        shapes[s] += 1
        examples.setdefault(s, (old[ops[0][1]].strip()[:90], new[ops[0][3]].strip()[:90]))
    if a.show:
        return
    print(f"one-line Java fixes in split {a.split}: {total}; made by one template edit: {made}")
    for s, n in shapes.most_common(a.top):
        print(f"{n:5d}  {s}  e.g. {examples[s][0]!r} -> {examples[s][1]!r}")


if __name__ == "__main__":
    main()
