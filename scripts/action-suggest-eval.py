#!/usr/bin/env python3
"""Accuracy of `fixdex search --actions` suggestions on the action-retrieval harness's queries
(issue 11 item 2): for each query, the first (action@1) or any of the first three (action@3)
suggested kinds, mapped to the harness's label names, equals the query's label. Beside it, the
prior: always suggest the most frequent non-OTHER label of the corpus (by the harness's labels,
so the baseline gets its best case), and of the queries themselves (an upper bound for any
constant guess). 95 % bootstrap CIs over queries.

Each query runs the CLI once (`fixdex search INDEX --code - --json`), excluding the query's id
and project, with its language, so the suggestions come from other projects' fixes only.

Usage (from the project root, after indexing the harness corpus as ../shared/eval/README.md says):
  scripts/action-suggest-eval.py --index target/action-eval/corpus.fdx --space code --rank action -k 10
"""
import argparse
import collections
import concurrent.futures
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from action_names import ci, harness_name as _name  # noqa: E402


def harness_name(s):
    """The harness's name of one suggestion."""
    return _name(s["kind"], s.get("examples") or [])


def dev_binary():
    """The dev-profile fixdex binary, wherever cargo puts it (scripts/fixdex-path.sh)."""
    out = subprocess.run([str(ROOT / "scripts/fixdex-path.sh"), "dev"], capture_output=True, text=True, check=True)
    return Path(out.stdout.strip())


def run(args, rec):
    cmd = [str(args.fixdex), "search", str(args.index), "--code", "-", f"--cause={rec.get('description') or ''}",
           "-k", str(args.k), "--space", args.space, "--lang", rec["language"], "--exclude-id", rec["id"],
           "--exclude-project", rec.get("project") or "", "--rank", args.rank, "--json"]
    p = subprocess.run(cmd, input=(rec.get("buggy_code") or "").encode(), capture_output=True, timeout=600)
    if p.returncode != 0:
        raise RuntimeError(f"{rec['id']}: {p.stderr.decode(errors='replace')[-300:]}")
    return [harness_name(s) for s in json.loads(p.stdout)["suggestions"]]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--index", type=Path, required=True)
    ap.add_argument("--corpus", type=Path, default=ROOT / "target/action-eval/corpus.jsonl")
    ap.add_argument("--queries", type=Path, default=ROOT.parent / "shared/eval/queries.jsonl")
    ap.add_argument("--harness-labels", type=Path, help="the harness's label cache (labels_*.json) for the prior")
    ap.add_argument("--fixdex", type=Path, help="the binary [default: scripts/fixdex-path.sh dev]")
    ap.add_argument("--space", default="code")
    ap.add_argument("--rank", default="action")
    ap.add_argument("-k", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--limit", type=int, default=0, help="first N queries only (0: all)")
    ap.add_argument("--out", type=Path, help="write per-query suggestions here (JSONL)")
    ap.add_argument("--reuse", type=Path, help="score the suggestions an earlier --out wrote instead of running")
    args = ap.parse_args()
    args.fixdex = args.fixdex or dev_binary()
    by_id = {}
    for line in args.corpus.open():
        r = json.loads(line)
        by_id[r["id"]] = r
    queries = [json.loads(line) for line in args.queries.open()]
    if args.limit:
        queries = queries[: args.limit]
    if args.reuse:
        answers = [json.loads(line)["suggested"] for line in args.reuse.open()][: len(queries)]
    else:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
            answers = list(ex.map(lambda q: run(args, by_id[q["id"]]), queries))
    if args.out and not args.reuse:
        with args.out.open("w") as f:
            for q, a in zip(queries, answers):
                f.write(json.dumps({"id": q["id"], "label": q["label"], "suggested": a}) + "\n")
    at1 = [float(bool(a) and a[0] == q["label"]) for q, a in zip(queries, answers)]
    at3 = [float(q["label"] in a[:3]) for q, a in zip(queries, answers)]
    none = sum(not a for a in answers)
    print(f"{len(queries)} queries, index {args.index}, space {args.space}, --rank {args.rank}, -k {args.k}; "
          f"{none} with no suggestion")
    for name, xs in (("action@1", at1), ("action@3", at3)):
        m, lo, hi = ci(xs)
        print(f"  {name}: {m:.3f} [{lo:.3f}, {hi:.3f}]")
    qcount = collections.Counter(q["label"] for q in queries)
    if args.harness_labels:
        cache = json.loads(args.harness_labels.read_text())  # the harness's: one label per corpus line
        values = cache.values() if isinstance(cache, dict) else cache
        corpus = collections.Counter(v for v in values if v != "OTHER")
        top = [lab for lab, _ in corpus.most_common(3)]
        for n in (1, 3):
            m, lo, hi = ci([float(q["label"] in top[:n]) for q in queries])
            print(f"  prior@{n} (corpus's most frequent {top[:n]}): {m:.3f} [{lo:.3f}, {hi:.3f}]")
    top = [lab for lab, _ in qcount.most_common(3)]
    for n in (1, 3):
        m, lo, hi = ci([float(q["label"] in top[:n]) for q in queries])
        print(f"  prior@{n} (the queries' own most frequent {top[:n]}): {m:.3f} [{lo:.3f}, {hi:.3f}]")


if __name__ == "__main__":
    sys.exit(main())
