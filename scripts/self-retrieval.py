#!/usr/bin/env python3
"""Issue 29 item 3: does a record's own code find it first?

Indexes $FIXDEX_SHARED/data/defects4j.jsonl (once; `--index` reuses a built one), picks
`--n` records (a fixed random sample, seed 29) and searches each with its own buggy code
as --code and, as --cause, either its own root cause (the indexed one: `root_cause`, else
`description`) or a generic one (`--generic-cause`, default "the code is wrong"), each
without and with --lines (the buggy lines the fix changes, from a line diff buggy ->
fixed). One `fixdex search --batch` per setting, k = 10, the ranking given by `--rank`
(default: none passed, so the command's default). Prints self@1 and self@10 (the record is
the first hit / among the ten) per setting, and one JSON object with `--json`.

    scripts/self-retrieval.py --fixdex "$(scripts/fixdex-path.sh dev)" --index scratch/d4j.fdx
    scripts/self-retrieval.py --fixdex "$(scripts/fixdex-path.sh dev)" --index scratch/d4j.fdx --rank dense
Heavy the first time (one embedding pass over 854 records): run it under `nice`.
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


def changed_lines(buggy, fixed):
    """`A-B`: the 1-based span of buggy lines the fix deletes or replaces (an insertion: the
    lines on either side), or None when the fix changes no line."""
    span = changed_span(buggy, fixed)
    return None if span is None else f"{span[0] + 1}-{span[1] + 1}"


def cause_of(r):
    """The root cause `fixdex index` stores by default: `root_cause`, else `description`."""
    return (r.get("root_cause") or r.get("description") or "").strip()


def build_index(fixdex, corpus, index):
    if index.exists():
        return
    index.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([fixdex, "index", str(corpus), "-o", str(index), "--quiet"], check=True)


def search(fixdex, index, queries, rank):
    """The hit ids of each query, in order (an error line gives no hits)."""
    args = [fixdex, "search", str(index), "--batch", "-", "-k", "10"]
    if rank:
        args += ["--rank", rank]
    text = "".join(json.dumps(q) + "\n" for q in queries)
    o = subprocess.run(args, input=text, capture_output=True, text=True)
    answers = [json.loads(line) for line in o.stdout.splitlines() if line.strip()]
    if len(answers) != len(queries):
        sys.exit(f"fixdex search --batch answered {len(answers)} of {len(queries)} lines:\n{o.stderr}")
    for a in answers:
        if "error" in a:
            print(f"line {a['line']}: {a['error']}", file=sys.stderr)
    return [[h["id"] for h in a.get("hits", [])] for a in answers]


def rates(ids, hits):
    at1 = sum(1 for i, h in zip(ids, hits) if h[:1] == [i])
    at10 = sum(1 for i, h in zip(ids, hits) if i in h[:10])
    return {"self_at_1": at1 / len(ids), "self_at_10": at10 / len(ids), "queries": len(ids)}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--fixdex", default=None, help="the binary (default: scripts/fixdex-path.sh release)")
    p.add_argument("--index", default=str(ROOT / "scratch" / "self-retrieval" / "defects4j.fdx"))
    p.add_argument("--n", type=int, default=100)
    p.add_argument("--rank", default=None, help="passed as --rank (default: the command's default)")
    p.add_argument("--generic-cause", default="the code is wrong")
    p.add_argument("--json", action="store_true")
    a = p.parse_args()
    if a.fixdex is None:
        path = subprocess.run([str(ROOT / "scripts" / "fixdex-path.sh")], capture_output=True, text=True, check=True)
        a.fixdex = path.stdout.strip()
    corpus = SHARED / "data" / "defects4j.jsonl"
    index = Path(a.index)
    build_index(a.fixdex, corpus, index)
    rows = [json.loads(line) for line in open(corpus)]
    sample = random.Random(29).sample(rows, a.n)
    ids = [r["id"] for r in sample]
    results = {}
    for cause_name, cause in [("own", cause_of), ("generic", lambda r: a.generic_cause)]:
        for with_lines in (False, True):
            queries = []
            for r in sample:
                q = {"id": r["id"], "code": r["buggy_code"], "cause": cause(r)}
                lines = changed_lines(r["buggy_code"], r["fixed_code"])
                if with_lines and lines:
                    q["lines"] = lines
                queries.append(q)
            key = f"{cause_name}_cause{'_lines' if with_lines else ''}"
            results[key] = rates(ids, search(a.fixdex, index, queries, a.rank))
    if a.json:
        print(json.dumps({"rank": a.rank or "default", "results": results}))
        return
    print(f"ranking: {a.rank or 'default'}; {a.n} records of {corpus.name}")
    print(f"{'setting':<22} {'self@1':>7} {'self@10':>8}")
    for k, v in results.items():
        print(f"{k:<22} {v['self_at_1']:>7.2f} {v['self_at_10']:>8.2f}")


if __name__ == "__main__":
    main()
