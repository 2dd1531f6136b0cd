#!/usr/bin/env python3
"""Fits and compares orders of the patterns strategy's candidates (issue 11 item 5,
repair/src/strategies/patterns/order.rs) offline, on splits of the shared corpus, with no test
run: the rank of the one template edit that turns a pair's buggy snippet into its fixed one
(whitespace aside), under the default order and under rules that use the retrieved similar
fixes. The rank is what `first_plausible_at` would be if the developer's fix were the first
plausible patch; QuixBugs (never read here) stays the measurement.

Input: the JSONL of `cargo run --workspace --example patterns_order`
(repair/examples/patterns_order.rs), one line per pair a single template edit fixes, with per
template its instances `n`, the instances that make a hit's own edit `c`, and the vote of the
hits a template reproduces. A rule gives every template a probability p(t) = α · vote(t) +
(1 − α) · prior(t), prior(t) the add-one-smoothed template shares of the --fit split; the
candidates go like order.rs: (optionally) a hit's own edits first, then by p(t)/n(t) (or p(t)
per template block), ties in the default order.

Steps: the prior and α from --fit (mean log2 rank); every rule on --fit and --test with a 95 %
bootstrap CI of the median and of the mean log2 rank, the share ranked within 200 (the
strategy's budget), and wins/losses against the default order (sign test). The shipped rule's
ranks (`rank`, computed by order.rs itself) are checked against this script's formula.

Usage (from the project root; the index of the shared corpus without QuixBugs, README):
  D=../shared/data; X=target/debug/examples/patterns_order
  cargo build --workspace --example patterns_order
  for s in 0 1; do $X --index target/qb2/full.fdx --model data/models/all-MiniLM-L6-v2 \
      --split $s/5 $D/manysstubs4j.jsonl $D/condefects.jsonl $D/codexglue_refinement.jsonl \
      $D/mined_git_history.jsonl $D/gitbug_java.jsonl > target/order-sim/split$s.jsonl; done
  scripts/patterns-order.py --fit target/order-sim/split0.jsonl --test target/order-sim/split1.jsonl \
      --exclude-source codexglue-code-refinement
"""
import argparse
import collections
import json
import math
import random
import statistics
import struct

TEMPLATES = ["CHANGE_OPERATOR", "CHANGE_OPERAND", "CHANGE_NUMERAL", "CHANGE_UNARY_OPERATOR", "SWAP_ARGUMENTS",
             "SWAP_OPERANDS", "DIFFERENT_METHOD", "DELETE_STATEMENT", "UNWRAP_CALL", "ADD_GUARD", "ADD_NULL_CHECK",
             "WRAP_TRY_CATCH", "MUTATE_LITERAL", "MUTATE_CONDITION", "MUTATE_RETURN", "CHANGE_ARGUMENT_COUNT",
             "CONSTRUCTOR_ARGUMENTS", "INSERT_MISSED_CALL", "MUTATE_DATA_TYPE", "FLOAT_DIVISION", "INSERT_CAST_CHECKER",
             "INSERT_RANGE_CHECKER", "MOVE_STATEMENT", "MUTATE_JUMP", "REPLACE_WITH_LITERAL", "CHANGE_IDENTIFIER",
             "OBJECT_EQUALITY", "DROP_CALL", "REMOVE_CAST", "INSERT_MISSED_JUMP", "ORDERED_COLLECTION",
             "INSERT_NAN_CHECKER", "DELETE_EXIT", "TRANSPLANT"]
BUDGET = 200


def tie_key(score):
    """order.rs's `tie_key`: the f64 score with its last 20 mantissa bits rounded away, so
    scores equal in exact arithmetic tie and keep the default order."""
    bits = struct.unpack("<Q", struct.pack("<d", max(score, 0.0)))[0]
    return (bits + (1 << 19)) & ~((1 << 20) - 1)


def rank(rec, p, per_instance=True, concrete=True):
    """1-based rank of the fixing edit when template t has probability p[t] (order.rs's rule)."""
    n, c = rec["n"], rec["c"] if concrete else {}
    tpl = rec["template"]

    def key(t):
        s = p[t] / n[t] if per_instance else p[t]
        return (-tie_key(s), TEMPLATES.index(t))

    kt = key(tpl)
    earlier = [t for t in n if key(t) < kt]
    if concrete and rec["concrete"]:
        return sum(c.get(t, 0) for t in earlier) + rec["before_concrete"] + 1
    before = rec["before_nonconcrete"] + (0 if concrete else rec["before_concrete"])
    return sum(c.values()) + sum(n[t] - c.get(t, 0) for t in earlier) + before + 1


def mix(rec, alpha, prior):
    """p(t) = alpha · vote(t) + (1 − alpha) · prior(t); the prior alone without a vote."""
    vote = rec["vote"]
    a = alpha if vote else 0.0
    return {t: a * vote.get(t, 0.0) + (1 - a) * prior[t] for t in TEMPLATES}


def counts(recs):
    cnt = collections.Counter(r["template"] for r in recs)
    return [cnt[t] for t in TEMPLATES]


def empirical(recs):
    """Share of each template among the pairs it fixes, add-one smoothed (order.rs's prior)."""
    cnt = counts(recs)
    total = sum(cnt) + len(TEMPLATES)
    return {t: (k + 1) / total for t, k in zip(TEMPLATES, cnt)}


ALPHAS = (0.0, 0.1, 0.25, 0.5, 0.75, 1.0)
SHIPPED_ALPHA = 0.1  # order.rs VOTE_WEIGHT


def rules(prior):
    """name -> (p(rec), per_instance, hits' edits first)."""
    out = {"default order": None,
           "prior (the --no-retrieval order)": (lambda r: prior, True, False)}
    for a in ALPHAS:
        out[f"{a} vote + {1 - a} prior, hits' edits first"] = (lambda r, a=a: mix(r, a, prior), True, True)
    out["0.1 vote + 0.9 prior, no hits' edits tier"] = (lambda r: mix(r, 0.1, prior), True, False)
    out["0.1 vote + 0.9 prior, template blocks"] = (lambda r: mix(r, 0.1, prior), False, True)
    return out


def ranks_of(recs, rule):
    if rule is None:
        return [r["rank_default"] for r in recs]
    f, per, conc = rule
    return [rank(r, f(r), per, conc) for r in recs]


def boot(xs, stat, n=1000, seed=1):
    rnd = random.Random(seed)
    vals = sorted(stat([rnd.choice(xs) for _ in xs]) for _ in range(n))
    return vals[int(0.025 * n)], vals[int(0.975 * n) - 1]


def sign_p(wins, losses):
    n, k = wins + losses, min(wins, losses)
    if n == 0:
        return 1.0
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n)


def mlog(xs):
    return statistics.fmean(math.log2(x) for x in xs)


def report(name, recs, ranks, base):
    med, ml = statistics.median(ranks), mlog(ranks)
    mci, lci = boot(ranks, statistics.median), boot(ranks, mlog)
    within = sum(x <= BUDGET for x in ranks) / len(ranks)
    wins = sum(a < b for a, b in zip(ranks, base))
    losses = sum(a > b for a, b in zip(ranks, base))
    print(f"{name:52} median {med:6.1f} [{mci[0]:.0f}, {mci[1]:.0f}]  mean log2 {ml:5.2f} [{lci[0]:.2f}, {lci[1]:.2f}]"
          f"  ≤{BUDGET} {within:.3f}  vs default {wins}/{losses} p={sign_p(wins, losses):.2g}")


def against(args, keep, fit, test):
    """The test split's pairs within BUDGET under the shipped rule, old code against new: gained,
    lost (McNemar exact p), and how far the pairs both fix move."""
    old_fit, old_test = ([r for r in map(json.loads, open(f)) if keep(r)] for f in args.against)
    ranked = lambda f, t: {r["id"]: rank(r, mix(r, SHIPPED_ALPHA, empirical(f))) for r in t}
    old, new = ranked(old_fit, old_test), ranked(fit, test)
    within = lambda rs: {k for k, v in rs.items() if v <= BUDGET}
    gained, lost = within(new) - within(old), within(old) - within(new)
    both = set(old) & set(new)
    moved = [new[k] - old[k] for k in both if new[k] != old[k]]
    print(f"against the old code: fixable pairs {len(old)} -> {len(new)}; within {BUDGET}: "
          f"{len(within(old))} -> {len(within(new))} ({len(gained)} gained, {len(lost)} lost, "
          f"McNemar exact p = {sign_p(len(gained), len(lost)):.2g}); pairs both fix: {len(moved)} move, "
          f"median {statistics.median(moved) if moved else 0:+}, earlier {sum(d < 0 for d in moved)}")
    print("  gained:", sorted(gained))
    print("  lost:", sorted(lost))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fit", required=True, help="simulator output the template prior is fitted on")
    ap.add_argument("--test", required=True, help="simulator output the rules are compared on")
    ap.add_argument("--by-source", action="store_true", help="also report each corpus source")
    ap.add_argument("--exclude-source", action="append", default=[],
                    help="leave out a corpus source from both splits (e.g. the abstracted "
                         "codexglue-code-refinement, whose identifiers are VAR_1, METHOD_2)")
    ap.add_argument("--against", nargs=2, metavar=("OLD_FIT", "OLD_TEST"),
                    help="the simulator outputs of the code before a template change: compare the pairs "
                         "ranked within the budget under the shipped rule, each code fitted on its own fit split")
    args = ap.parse_args()
    keep = lambda r: r["source"] not in args.exclude_source
    fit = [r for r in map(json.loads, open(args.fit)) if keep(r)]
    test = [r for r in map(json.loads, open(args.test)) if keep(r)]
    prior = empirical(fit)
    print(f"template prior (fit split, {len(fit)} pairs): counts in Template::ALL order {counts(fit)}")
    print("  shares:", json.dumps({t: round(v, 4) for t, v in sorted(prior.items(), key=lambda kv: -kv[1])}))
    fitted = {a: mlog([rank(r, mix(r, a, prior)) for r in fit]) for a in ALPHAS}
    print("mean log2 rank on the fit split by α:", {a: round(v, 3) for a, v in fitted.items()},
          "→ α =", min(fitted, key=fitted.get))
    # order.rs's own ranks (its constants) against this formula with α = VOTE_WEIGHT.
    agree = sum(rank(r, mix(r, SHIPPED_ALPHA, prior)) == r["rank"] for r in test)
    print(f"order.rs cross-check: {agree}/{len(test)} shipped ranks reproduced "
          "(all when its TEMPLATE_FIXES are this fit split's counts)")
    if args.against:
        against(args, keep, fit, test)
    for split, recs in (("fit", fit), ("test", test)):
        groups = [("all", recs)]
        if args.by_source:
            by = collections.defaultdict(list)
            for r in recs:
                by[r["source"]].append(r)
            groups += sorted(by.items())
        for gname, g in groups:
            print(f"\n== {split} split, {gname}: {len(g)} pairs")
            base = ranks_of(g, None)
            for name, rule in rules(prior).items():
                report(name, g, ranks_of(g, rule), base)
            # The retrieval's own effect: the shipped rule against the prior alone.
            shipped = [rank(r, mix(r, SHIPPED_ALPHA, prior)) for r in g]
            alone = [rank(r, prior, True, False) for r in g]
            wins, losses = sum(a < b for a, b in zip(shipped, alone)), sum(a > b for a, b in zip(shipped, alone))
            print(f"shipped (α = {SHIPPED_ALPHA}) vs the prior alone: earlier on {wins}, later on {losses}, "
                  f"sign test p = {sign_p(wins, losses):.2g}")


if __name__ == "__main__":
    main()
