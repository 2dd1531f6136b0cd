#!/usr/bin/env python3
"""Issue 11 item 4: retrieval of long methods by their buggy region, rule cause-first-v1
(the code's first tokens) against cause-first-window-v1 (signature + window around the
lines the fix changes).

Picks long function-level records from $FIXDEX_SHARED/data (buggy_code of at least 1,400
characters and 30 lines, well past 256 tokens; hunk-level records left out; changed span
of at most 11 lines, from a line diff buggy -> fixed), indexes them twice in the `code`
space (`fixdex index --embed-rule v1` and `window-v1`), and queries each record with its
buggy region (the changed lines +-5) as --code, with --lines pointing at the changed lines
(and, for the window index, also without --lines). Exact search, k = 5. Prints recall@1
and recall@5 for each, over all records and over those whose bug starts past ~1,100
characters (about 256 tokens of code: the part cause-first-v1 never sees).

    scripts/window-compare.py --out target/window-compare            # 400 records
    scripts/window-compare.py --out target/window-compare --limit 100
Heavy (one embedding pass per index, three searches per record): run it under `nice`.
"""
import argparse
import json
import os
import random
import subprocess
import sys
from pathlib import Path

from diff_span import changed_span

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("FIXDEX_SHARED", ROOT.parent / "shared"))
FILES = ["defects4j", "bugsinpy", "mined_git_history", "manysstubs4j", "gitbug_java"]
PAST_CUT_CHARS = 1100


def pick(out, limit):
    cands = []
    for f in FILES:
        for line in open(SHARED / "data" / f"{f}.jsonl"):
            r = json.loads(line)
            if r.get("meta", {}).get("granularity") == "hunk":
                continue
            b = r["buggy_code"]
            if len(b) < 1400 or len(b.splitlines()) < 30:
                continue
            span = changed_span(b, r["fixed_code"])
            if span is None or span[1] - span[0] > 10:
                continue
            before = sum(len(s) + 1 for s in b.splitlines()[: span[0]])
            cands.append((r, span, before))
    random.seed(11)
    random.shuffle(cands)
    cands = cands[:limit]
    (out / "q").mkdir(parents=True, exist_ok=True)
    queries = []
    with open(out / "corpus.jsonl", "w") as c:
        for k, (r, (a, z), before) in enumerate(cands):
            c.write(json.dumps(r) + "\n")
            lines = r["buggy_code"].splitlines()
            lo, hi = max(0, a - 5), min(len(lines) - 1, z + 5)
            p = out / "q" / f"{k}.txt"
            p.write_text("\n".join(lines[lo : hi + 1]) + "\n")
            queries.append({"id": r["id"], "q": str(p), "lines": f"{a - lo + 1}-{z - lo + 1}", "chars_before": before})
    return queries


def run(fixdex, args):
    o = subprocess.run([fixdex, *args], capture_output=True, text=True)
    if o.returncode != 0:
        sys.exit(f"fixdex {' '.join(args)} failed:\n{o.stderr}")
    return json.loads(o.stdout)


def rank(fixdex, idx, q, lines):
    args = ["search", str(idx), "--code", q["q"], "--space", "code", "--exact", "-k", "5", "--json"]
    if lines:
        args += ["--lines", q["lines"]]
    ids = [h["id"] for h in run(fixdex, args)["hits"]]
    return ids.index(q["id"]) + 1 if q["id"] in ids else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=ROOT / "target" / "window-compare")
    ap.add_argument("--limit", type=int, default=400)
    ap.add_argument("--profile", default="dev", help="cargo profile of the fixdex binary (default dev)")
    a = ap.parse_args()
    fixdex = subprocess.run([ROOT / "scripts" / "fixdex-path.sh", a.profile], capture_output=True, text=True,
                            check=True).stdout.strip()
    queries = pick(a.out, a.limit)
    for rule in ["v1", "window-v1"]:
        stats = run(fixdex, ["index", str(a.out / "corpus.jsonl"), "-o", str(a.out / f"{rule}.fdx"), "--spaces",
                             "code", "--embed-rule", rule, "--json", "-q"])
        print(f"{rule}: {stats['indexed']} documents, {stats['truncated']} truncated, {stats['windowed']} windowed")
    runs = {"v1 --lines": ("v1", True), "window-v1 --lines": ("window-v1", True), "window-v1 no --lines": ("window-v1", False)}
    ranks = {name: [rank(fixdex, a.out / f"{idx}.fdx", q, lines) for q in queries] for name, (idx, lines) in runs.items()}
    with open(a.out / "ranks.jsonl", "w") as f:
        for i, q in enumerate(queries):
            f.write(json.dumps({**q, **{n: r[i] for n, r in ranks.items()}}) + "\n")
    groups = {"all": range(len(queries)),
              f"bug past {PAST_CUT_CHARS} chars": [i for i, q in enumerate(queries) if q["chars_before"] > PAST_CUT_CHARS]}
    print(f"{'index / query':24} {'records':>16} {'n':>4} {'recall@1':>9} {'recall@5':>9}")
    for name, r in ranks.items():
        for g, rows in groups.items():
            n = len(rows)
            r1 = sum(1 for i in rows if r[i] == 1) / max(n, 1)
            r5 = sum(1 for i in rows if r[i] >= 1) / max(n, 1)
            print(f"{name:24} {g:>16} {n:>4} {r1:>9.3f} {r5:>9.3f}")


if __name__ == "__main__":
    main()
