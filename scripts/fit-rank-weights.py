#!/usr/bin/env python3
"""Fits the weights of `fixdex search --rank action` (repair/src/rank.rs, Weights::FITTED) on a
split of the action-retrieval corpus disjoint from the evaluation queries, with fixdex's own
action labels (the `classify` example of the actions crate) as relevance. Nothing is read from
the evaluation queries except their ids, which the split avoids (their 59 projects cover the
whole corpus, so a split by project is impossible; candidates are always other projects').

Steps: (1) label the corpus with our classifier; (2) sample training queries (non-OTHER by our
label) among the records that are not evaluation queries; (3) run each through the CLI once with
`--rank action --json -k POOL` (the features of a candidate do not depend on the weights, so
one run serves every weight vector); (4) coordinate ascent on the weights for mean action
precision@5 (candidates: same language, other project, not the query, as the harness does);
(5) print P@5 with a 95 % bootstrap CI for dense, hybrid and action under the fitted weights.

Usage (from the project root, after `fixdex index` of the harness corpus, see ../shared/eval):
  scripts/fit-rank-weights.py --corpus target/action-eval/corpus.jsonl \
      --index target/action-eval/corpus.fdx --space code --queries 600
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
FIT = {"none": 0, "kind": 1, "tokens": 2}
NAMES = ["bm25", "fit_kind", "fit_tokens", "vote", "prior", "no_action"]
# Weights up to 2 (dense has 1): larger ones turn the cosine into a mere tie-breaker for no
# held-out gain (measured: 0.155 vs 0.151 P@5 on the held-out half, well inside the CI).
GRID = [0.0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0]


def dev_binary():
    """The dev-profile fixdex binary, wherever cargo puts it (scripts/fixdex-path.sh)."""
    out = subprocess.run([str(ROOT / "scripts/fixdex-path.sh"), "dev"], capture_output=True, text=True, check=True)
    return Path(out.stdout.strip())


def our_labels(recs, binary, cache):
    if cache.exists():
        return json.loads(cache.read_text())
    lines = "".join(json.dumps({k: r.get(k) for k in ("id", "buggy_code", "fixed_code", "language")}) + "\n"
                    for r in recs)
    out = subprocess.run([str(binary)], input=lines, capture_output=True, text=True, check=True)
    labels = {}
    for line in out.stdout.splitlines():
        o = json.loads(line)
        labels[o["id"]] = o["label"]
    cache.write_text(json.dumps(labels))
    return labels


def run_query(args, rec):
    cmd = [str(args.fixdex), "search", str(args.index), "--code", "-", f"--cause={rec.get('description') or ''}",
           "-k", str(args.pool), "--space", args.space, "--lang", rec["language"], "--exclude-id", rec["id"],
           "--exclude-project", rec.get("project") or "", "--rank", "action", "--json"]
    p = subprocess.run(cmd, input=(rec.get("buggy_code") or "").encode(), capture_output=True, timeout=600)
    if p.returncode != 0:
        raise RuntimeError(p.stderr.decode(errors="replace")[-400:])
    hits = json.loads(p.stdout)["hits"]
    return [(h["id"], h["features"]) for h in hits]


def score(f, w, mode):
    s = f["dense"]
    if mode == "dense":
        return s
    s += w["bm25"] * f["bm25"]
    if mode == "hybrid":
        return s
    fit = FIT[f["fit"]]
    return (s + w["fit_kind"] * (fit >= 1) + w["fit_tokens"] * (fit >= 2) + w["vote"] * f["vote"]
            + w["prior"] * f["prior"] - w["no_action"] * f["no_action"])


def precisions(data, w, mode, depth=5):
    """Per query: fraction of the top `depth` admissible candidates sharing the query's label."""
    out = []
    for qlabel, hits in data:
        # near-duplicates (cosine >= 0.95, rank.rs NEAR_DUPLICATE) first in dense order, then by score;
        # stable: dense order on ties
        ranked = sorted(hits, key=lambda h: (-(h[2]["dense"] >= 0.95),
                                             -(h[2]["dense"] if h[2]["dense"] >= 0.95 else score(h[2], w, mode))))
        top = ranked[:depth]
        out.append(sum(h[1] == qlabel for h in top) / depth)
    return out


def mean(xs):
    return sum(xs) / max(1, len(xs))


def bootstrap(xs, n=2000, seed=7):
    rng = random.Random(seed)
    ms = sorted(mean([xs[rng.randrange(len(xs))] for _ in xs]) for _ in range(n))
    return ms[int(0.025 * n)], ms[int(0.975 * n) - 1]


def fit(data, names=NAMES):
    w = {k: 0.0 for k in NAMES}
    best = mean(precisions(data, w, "action"))
    for _ in range(3):
        improved = False
        for name in names:
            for v in GRID:
                trial = dict(w, **{name: v})
                p = mean(precisions(data, trial, "action"))
                if p > best + 1e-9:
                    best, w, improved = p, trial, True
        if not improved:
            break
    return w, best


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, required=True)
    ap.add_argument("--index", type=Path, required=True)
    ap.add_argument("--eval-queries", type=Path, default=ROOT.parent / "shared/eval/queries.jsonl")
    ap.add_argument("--fixdex", type=Path, help="the binary [default: scripts/fixdex-path.sh dev]")
    ap.add_argument("--classify", type=Path, help="the classify example [default: beside the dev binary]")
    ap.add_argument("--space", default="code")
    ap.add_argument("--queries", type=int, default=600)
    ap.add_argument("--pool", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--cache", type=Path, default=ROOT / "target/rank-fit")
    ap.add_argument("--without", action="append", default=[], choices=NAMES,
                    help="leave this feature out of the fit (weight 0; repeatable)")
    args = ap.parse_args()
    args.fixdex = args.fixdex or dev_binary()
    args.classify = args.classify or args.fixdex.parent / "examples" / "classify"
    sys.path.insert(0, str(args.eval_queries.parent))
    import bfp  # the harness's canonical project names, for the split and the exclusions

    args.cache.mkdir(parents=True, exist_ok=True)
    recs = [json.loads(line) for line in args.corpus.open()]
    by_id = {r["id"]: r for r in recs}
    labels = our_labels(recs, args.classify, args.cache / f"labels-{len(recs)}.json")
    eval_ids = {json.loads(line)["id"] for line in args.eval_queries.open()}
    pool = [r for r in recs if labels.get(r["id"], "OTHER") != "OTHER" and r["id"] not in eval_ids]
    if not pool:
        raise SystemExit("no admissible training record")
    random.Random(args.seed).shuffle(pool)
    train = pool[: args.queries]
    print(f"corpus {len(recs)}, evaluation queries {len(eval_ids)}, admissible training records {len(pool)}, "
          f"training queries {len(train)} ({collections.Counter(r['language'] for r in train)})", file=sys.stderr)

    dump = args.cache / f"features-{args.space}-{args.queries}-{args.seed}.jsonl"
    if not dump.exists():
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex, dump.open("w") as out:
            for n, (r, hits) in enumerate(zip(train, ex.map(lambda r: run_query(args, r), train)), 1):
                out.write(json.dumps({"id": r["id"], "hits": hits}) + "\n")
                if n % 50 == 0:
                    print(f"{n}/{len(train)} queries", file=sys.stderr)
    data = []
    for line in dump.open():
        try:
            q = json.loads(line)
        except json.JSONDecodeError:  # the last line of a dump cut short
            continue
        rec = by_id[q["id"]]
        proj = bfp.canonical_project(rec)
        hits = [(h, labels.get(h, "OTHER"), f) for h, f in q["hits"]
                if h != q["id"] and h in by_id and bfp.canonical_project(by_id[h]) != proj
                and by_id[h]["language"] == rec["language"]]
        data.append((labels[q["id"]], hits))

    # Two halves: fit on one, check on the other, so the reported gain is not the fit's own.
    half = len(data) // 2
    w, p_fit = fit(data[:half], [n for n in NAMES if n not in args.without])
    print(f"fitted on {half} queries: P@5 {p_fit:.3f}; weights {json.dumps(w)}")
    w_bm25 = max(GRID, key=lambda v: mean(precisions(data[:half], {"bm25": v}, "hybrid")))
    for name, part in (("fit half", data[:half]), ("held-out half", data[half:]), ("all", data)):
        print(f"\n{name} ({len(part)} queries), P@5 [95 % CI]:")
        for mode, ww in (("dense", w), ("hybrid", dict(w, bm25=w_bm25)), ("action", w)):
            ps = precisions(part, ww, mode)
            lo, hi = bootstrap(ps)
            print(f"  {mode:7s} {mean(ps):.3f} [{lo:.3f}, {hi:.3f}]")
        for drop in NAMES:
            ps = precisions(part, dict(w, **{drop: 0.0}), "action")
            print(f"  action without {drop:10s} {mean(ps):.3f}")
    print(f"\nhybrid bm25 weight: {w_bm25}")


if __name__ == "__main__":
    main()
