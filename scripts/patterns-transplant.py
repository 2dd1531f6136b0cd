#!/usr/bin/env python3
"""Where the transplanted fixes belong among the template edits (issue 32 item 2).

Reads the output of `repair/examples/patterns_transplant.rs` on two disjoint corpus splits
(fit, test) and, with no test run:

1. counts the pairs one template edit fixes, the pairs a transplant fixes, and the pairs only a
   transplant fixes;
2. estimates on the fit split how often the transplant at shipped position j is the fix
   (q_j, add-half smoothed, pooled over positions >= 5), and how often a template edit of
   prior score s = p(t)/n(t) is (f * s, f the share of pairs one template edit fixes: the
   prior p(t) is a share among those pairs);
3. on the test split, ranks the first fixing candidate of every pair either fixes under three
   orders: `templates` (the prior alone, `--no-retrieval`), `first` (every transplant before
   the templates: what shipped until issue 32's calibration) and `merged` (transplants and
   templates together by those probabilities, the likeliest first), and compares them
   (median rank, pairs within the 200-candidate budget, sign test on the ranks).

Result (issue 32): on the test split (4,757 pairs, ManySStuBs4J left out) one template edit
fixes 360 pairs and a transplant 115, 43 of them ones no template edit fixes (12 of 2,322 in
mined-git-history Java, the code nearest Defects4J). Within the 200-candidate budget:
`templates` 317, `first` 358, `merged` 358; `merged` ranks the fix earlier than `first` on 23
pairs and later on 43 (sign test p = 0.019). So the transplants stay first: per candidate they
are as likely as the best template edits (q_0 = 0.0066 against 0.0853 x s), and the calibrated
merge gained nothing.

ManySStuBs4J is left out (`--skip-source`): its project is `unknown`, so retrieval cannot leave
a pair's own project out, and a commit's sibling hunks, the same change in another method,
are its neighbours (on split 0, 177 of its 1,576 first transplants were the fix; 10 of 2,104
in mined-git-history Java).

Usage: scripts/patterns-transplant.py --fit split-0.jsonl --test split-1.jsonl [--json]
       [--skip-source manysstubs4j] [--base split-1-other-limits.jsonl]

Several-region transplants (`FIXDEX_TRANSPLANT_REGIONS=3` against the default 1, test split, as
--test and --base): 1,596 more transplants, no pair gained, the first fix later on 63 pairs and
earlier on none (sign test p < 1e-18), so the default stays one region (transplant.rs docs);
16 tokens a region (`FIXDEX_TRANSPLANT_TOKENS=16`, with 3 regions) against the default: 1 pair
gained, 76 fixes later, 1 earlier.
"""
import argparse
import json
import math
import statistics

BUDGET = 200
POOL = 5


def load(path, skip):
    with open(path) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return [r for r in rows if r["source"] not in skip]


def fit(rows):
    """(f, q): the share of pairs one template edit fixes, and q_j per transplant position."""
    f = sum(r["template_fix"] is not None for r in rows) / max(1, len(rows))
    made = [0] * (POOL + 1)
    hit = [0] * (POOL + 1)
    for r in rows:
        fixing = set(r["transplant_fix"])
        for j in range(r["transplants"]):
            b = min(j, POOL)
            made[b] += 1
            hit[b] += j in fixing
    q = [(hit[b] + 0.5) / (made[b] + 1.0) for b in range(POOL + 1)]
    return f, q, made, hit


def ranks(r, f, q):
    """The 1-based rank of the first fixing candidate under each order (None: not fixed)."""
    t = r["template_fix"]
    tf = r["transplant_fix"]
    n = r["transplants"]
    templates = t + 1 if t is not None else None
    if tf:
        first = tf[0] + 1
    elif t is not None:
        first = n + t + 1
    else:
        first = None
    # merged: the two lists, each in its own order, merged by probability (a transplant first
    # on a tie): `transplant::then_templates`
    scores = r["template_scores"]
    j = i = 0
    merged = None
    while j < n or i < len(scores):
        if j < n and (i >= len(scores) or q[min(j, POOL)] >= f * scores[i]):
            fixing, j = j in tf, j + 1
        else:
            fixing, i = i == t, i + 1
        if fixing:
            merged = i + j
            break
    return {"templates": templates, "first": first, "merged": merged}


def sign_test(a, b):
    """Two-sided exact sign test p on paired ranks (None: not fixed = budget + 1)."""
    lo = hi = 0
    for x, y in zip(a, b):
        x = x if x is not None else math.inf
        y = y if y is not None else math.inf
        lo += x < y
        hi += y < x
    n, k = lo + hi, min(lo, hi)
    if n == 0:
        return lo, hi, 1.0
    p = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return lo, hi, min(1.0, 2 * p)


def summary(values):
    inside = [v for v in values if v is not None and v <= BUDGET]
    fixed = [v for v in values if v is not None]
    return {
        "fixed": len(fixed),
        "within_budget": len(inside),
        "median_rank": statistics.median(fixed) if fixed else None,
        "mean_log2_rank": sum(math.log2(v) for v in fixed) / len(fixed) if fixed else None,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fit", required=True)
    ap.add_argument("--test", required=True)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--base", help="another run of the example on the test split (other transplant limits, "
                    "FIXDEX_TRANSPLANT_TOKENS / FIXDEX_TRANSPLANT_REGIONS): the paired comparison of --test with it")
    ap.add_argument("--skip-source", action="append", default=None,
                    help="a source to leave out (repeatable; default: manysstubs4j)")
    a = ap.parse_args()
    skip = set(a.skip_source if a.skip_source is not None else ["manysstubs4j"]) - {""}
    fit_rows, test_rows = load(a.fit, skip), load(a.test, skip)
    f, q, made, hit = fit(fit_rows)
    out = {"fit": {"pairs": len(fit_rows), "template_share": f, "q": q, "made": made, "fixing": hit}}
    for name, rows in (("fit", fit_rows), ("test", test_rows)):
        t = sum(r["template_fix"] is not None for r in rows)
        tp = sum(bool(r["transplant_fix"]) for r in rows)
        only = sum(bool(r["transplant_fix"]) and r["template_fix"] is None for r in rows)
        out.setdefault(name, {}).update(
            {"pairs": len(rows), "template_fixed": t, "transplant_fixed": tp, "transplant_only": only,
             "transplants_made": sum(r["transplants"] for r in rows)})
    rk = [ranks(r, f, q) for r in test_rows]
    rk = [x for x in rk if any(v is not None for v in x.values())]
    orders = ("templates", "first", "merged")
    out["test"]["orders"] = {o: summary([x[o] for x in rk]) for o in orders}
    out["test"]["paired"] = {}
    for a_, b_ in (("merged", "templates"), ("merged", "first"), ("first", "templates")):
        lo, hi, p = sign_test([x[a_] for x in rk], [x[b_] for x in rk])
        out["test"]["paired"][f"{a_} vs {b_}"] = {"earlier": lo, "later": hi, "sign_test_p": p}
    if a.base:
        out["against_base"] = against(load(a.base, skip), test_rows, f, q)
    if a.json:
        print(json.dumps(out, indent=1))
        return
    print(f"sources left out: {', '.join(sorted(skip)) or 'none'}")
    print(f"fit split: {len(fit_rows)} pairs; one template edit fixes {f:.3%}")
    print("transplant position j: made, fixing, q_j")
    for b in range(POOL + 1):
        label = f">={POOL}" if b == POOL else str(b)
        print(f"  {label:>3}: {made[b]:6} {hit[b]:4}  {q[b]:.4f}")
    for name in ("fit", "test"):
        s = out[name]
        print(f"{name}: {s['pairs']} pairs; template-fixed {s['template_fixed']}, transplant-fixed "
              f"{s['transplant_fixed']} (only by a transplant: {s['transplant_only']}); "
              f"{s['transplants_made']} transplants made")
    print(f"test split, {len(rk)} pairs fixed by some candidate:")
    for o in orders:
        s = out["test"]["orders"][o]
        print(f"  {o:9}: fixed {s['fixed']}, within {BUDGET}: {s['within_budget']}, median rank "
              f"{s['median_rank']}, mean log2 rank {s['mean_log2_rank']:.2f}")
    for k, v in out["test"]["paired"].items():
        print(f"  {k}: earlier {v['earlier']}, later {v['later']}, sign test p = {v['sign_test_p']:.2g}")
    if a.base:
        v = out["against_base"]
        print(f"against --base ({v['pairs']} pairs in both): transplants made {v['made_base']} -> {v['made']}, "
              f"transplant-fixed {v['fixed_base']} -> {v['fixed']} (gained {v['gained']}, lost {v['lost']}); "
              f"order `first`: earlier {v['earlier']}, later {v['later']}, sign test p = {v['sign_test_p']:.2g}")


def against(base_rows, rows, f, q):
    """--test against --base pair by pair: transplants made and fixing, and the `first` order's ranks."""
    base = {r["id"]: r for r in base_rows}
    both = [(base[r["id"]], r) for r in rows if r["id"] in base]
    fixed = lambda r: bool(r["transplant_fix"])
    lo, hi, p = sign_test([ranks(r, f, q)["first"] for _, r in both], [ranks(b, f, q)["first"] for b, _ in both])
    return {"pairs": len(both), "made_base": sum(b["transplants"] for b, _ in both),
            "made": sum(r["transplants"] for _, r in both), "fixed_base": sum(fixed(b) for b, _ in both),
            "fixed": sum(fixed(r) for _, r in both), "gained": sum(fixed(r) and not fixed(b) for b, r in both),
            "lost": sum(fixed(b) and not fixed(r) for b, r in both), "earlier": lo, "later": hi, "sign_test_p": p}


if __name__ == "__main__":
    main()
