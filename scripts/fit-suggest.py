#!/usr/bin/env python3
"""Fits the action-suggestion rule of `fixdex search --actions` (repair/src/suggest.rs) on a split
of the action-retrieval corpus disjoint from the evaluation queries (issue 11 item 2).

The rule: kind k scores w_k + m * prior_k, where w_k is the summed cosine of the voting hits
labelled k (the similarity-weighted vote) and prior_k the kind's share of the index's classified
non-OTHER documents; m (in units of cosine) pulls an uncertain vote towards the index's label
shares (a Dirichlet prior on the kind; m = 0 is the raw vote, m -> inf the constant prior). The
voters are the top `k` hits of the dense ranking or of `--rank action`.

Steps: (1) training queries: corpus records that are not evaluation queries and whose harness
label (../shared/eval/labels.py, its cache in target/action-eval) is not OTHER, shuffled with a
seed; (2) each runs through the CLI twice (`--rank dense -k POOL` and `--rank action -k 10`, the
query's id and project excluded, its language only), cached as JSONL; (3) action@1 / action@3
against the harness label for every (voters, k, m) on the first half, and the chosen rule
checked on the second half, with 95 % bootstrap CIs. Nothing is read from the evaluation
queries except their ids, which the split avoids.

Usage (from the project root, after indexing the harness corpus as ../shared/eval/README.md says):
  scripts/fit-suggest.py --index target/action-eval/corpus.fdx --queries 600
"""
import argparse
import collections
import concurrent.futures
import json
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from action_names import ci, harness_name  # noqa: E402

M_GRID = [0.0, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 1e6]
K_GRID = [5, 10, 20, 50]


def dev_binary():
    out = subprocess.run([str(ROOT / "scripts/fixdex-path.sh"), "dev"], capture_output=True, text=True, check=True)
    return Path(out.stdout.strip())


def search(args, rec, rank, k):
    cmd = [str(args.fixdex), "search", str(args.index), "--code", "-", f"--cause={rec.get('description') or ''}",
           "-k", str(k), "--space", args.space, "--lang", rec["language"], "--exclude-id", rec["id"],
           "--exclude-project", rec.get("project") or "", "--rank", rank, "--json"]
    p = subprocess.run(cmd, input=(rec.get("buggy_code") or "").encode(), capture_output=True, timeout=600)
    if p.returncode != 0:
        raise RuntimeError(f"{rec['id']}: {p.stderr.decode(errors='replace')[-300:]}")
    hits = json.loads(p.stdout)["hits"]
    return [{"id": h["id"], "score": h["score"], "label": h.get("action_label") or "",
             "actions": h.get("actions") or []} for h in hits]


def suggest(hits, prior, m, examples):
    """Our kinds ranked by w_k + m * prior_k (ties: the best voter's rank, then the prior)."""
    w, first = collections.defaultdict(float), {}
    for i, h in enumerate(hits):
        if h["label"] in ("", "OTHER"):
            continue
        w[h["label"]] += max(h["score"], 0.0)
        first.setdefault(h["label"], i)
        examples.setdefault(h["label"], [a for a in h["actions"] if a.get("kind") == h["label"]])
    kinds = set(w) | (set(prior) if m > 0 else set())
    return sorted(kinds, key=lambda k: (-(w[k] + m * prior.get(k, 0.0)), first.get(k, 10**9), -prior.get(k, 0.0)))


def accuracy(rows, prior, voters, k, m):
    at1, at3 = [], []
    for label, runs in rows:
        hits = runs[voters][:k]
        examples = {}
        kinds = suggest(hits, prior, m, examples)
        names = []
        for kind in kinds:
            n = harness_name(kind, examples.get(kind, []))
            if n not in names:
                names.append(n)
        at1.append(float(bool(names) and names[0] == label))
        at3.append(float(label in names[:3]))
    return at1, at3


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--index", type=Path, required=True)
    ap.add_argument("--corpus", type=Path, default=ROOT / "target/action-eval/corpus.jsonl")
    ap.add_argument("--harness-labels", type=Path, help="the harness's label cache [default: the one in target/action-eval]")
    ap.add_argument("--our-labels", type=Path, default=ROOT / "target/rank-fit/labels-19507.json",
                    help="fixdex's labels of the corpus (the index's action_label column), for the prior")
    ap.add_argument("--eval-queries", type=Path, default=ROOT.parent / "shared/eval/queries.jsonl")
    ap.add_argument("--fixdex", type=Path)
    ap.add_argument("--space", default="code")
    ap.add_argument("--queries", type=int, default=600)
    ap.add_argument("--pool", type=int, default=50)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--cache", type=Path, default=ROOT / "target/suggest-fit")
    args = ap.parse_args()
    args.fixdex = args.fixdex or dev_binary()
    hl = args.harness_labels or next((ROOT / "target/action-eval").glob("labels_*.json"))
    recs = [json.loads(line) for line in args.corpus.open()]
    harness = json.loads(hl.read_text())
    if len(harness) != len(recs):
        raise SystemExit(f"{hl}: {len(harness)} labels for {len(recs)} corpus records")
    ours = json.loads(args.our_labels.read_text())
    counts = collections.Counter(v for v in ours.values() if v and v != "OTHER")
    total = sum(counts.values())
    prior = {k: c / total for k, c in counts.items()}
    eval_ids = {json.loads(line)["id"] for line in args.eval_queries.open()}
    pool = [(r, lab) for r, lab in zip(recs, harness) if lab != "OTHER" and r["id"] not in eval_ids]
    random.Random(args.seed).shuffle(pool)
    train = pool[: args.queries]
    print(f"corpus {len(recs)}, admissible {len(pool)}, training queries {len(train)}", file=sys.stderr)

    args.cache.mkdir(parents=True, exist_ok=True)
    dump = args.cache / f"hits-{args.space}-{args.queries}-{args.seed}-{args.pool}.jsonl"
    done = {}
    if dump.exists():
        for line in dump.open():
            try:
                o = json.loads(line)
                done[o["id"]] = o
            except json.JSONDecodeError:
                pass
    todo = [(r, lab) for r, lab in train if r["id"] not in done]

    def both(item):
        r, _ = item
        return {"id": r["id"], "dense": search(args, r, "dense", args.pool), "action": search(args, r, "action", 10)}

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex, dump.open("a") as out:
        for n, o in enumerate(ex.map(both, todo), 1):
            out.write(json.dumps(o) + "\n")
            out.flush()
            done[o["id"]] = o
            if n % 50 == 0:
                print(f"{n}/{len(todo)} queries", file=sys.stderr)
    rows = [(lab, done[r["id"]]) for r, lab in train]
    half = len(rows) // 2
    fit_rows, test_rows = rows[:half], rows[half:]
    print(f"fit half {len(fit_rows)} queries; action@1 / action@3 (mean over queries)")
    best = None
    for voters in ("dense", "action"):
        for k in (K_GRID if voters == "dense" else [10]):
            line = []
            for m in M_GRID:
                a1, a3 = accuracy(fit_rows, prior, voters, k, m)
                s1, s3 = sum(a1) / len(a1), sum(a3) / len(a3)
                line.append(f"m={m:g} {s1:.3f}/{s3:.3f}")
                if best is None or (s1, s3) > best[0]:
                    best = ((s1, s3), voters, k, m)
            print(f"  {voters:6s} k={k:2d}: " + "  ".join(line))
    (_, voters, k, m) = best
    print(f"\nchosen on the fit half: voters {voters}, k {k}, m {m:g}")
    for name, part in (("fit half", fit_rows), ("held-out half", test_rows)):
        print(f"{name} ({len(part)} queries), [95 % CI]:")
        for label, (v, kk, mm) in (("chosen", (voters, k, m)), ("raw vote, --rank action -k 10 (today)", ("action", 10, 0.0)),
                                   ("constant prior", ("dense", 10, 1e6))):
            a1, a3 = accuracy(part, prior, v, kk, mm)
            (m1, l1, h1), (m3, l3, h3) = ci(a1), ci(a3)
            print(f"  {label}: action@1 {m1:.3f} [{l1:.3f}, {h1:.3f}]  action@3 {m3:.3f} [{l3:.3f}, {h3:.3f}]")


if __name__ == "__main__":
    main()
