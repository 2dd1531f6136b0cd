#!/usr/bin/env python3
"""Compare `fixdex eval quixbugs --strategy patterns` runs (issue 11 item 5): plausible programs
per run, and on the programs two runs both fix, the validations until the first plausible patch
(`details.first_plausible_at`): median of each, and how often each needs fewer, with a
two-sided sign test. With --diffs, every plausible patch of each run as Markdown (to judge
overfitting).

Each run is a `--report-dir` (one `<program>.json` report per bug). Programs whose report is
missing (a run still going, or cut off) are listed and left out of the comparison.

Usage (from the project root):
  scripts/patterns-compare.py target/qb/java-noret target/qb/java-ret [--diffs OUT.md]
"""
import argparse
import json
import math
import statistics
import sys
from pathlib import Path


def load(folder):
    """program -> report of every `<program>.json` in `folder`."""
    out = {}
    for f in sorted(Path(folder).glob("*.json")):
        r = json.loads(f.read_text())
        out[f.stem] = r
    return out


def first(r):
    """Validations until the first plausible patch, or None."""
    return (r.get("details") or {}).get("first_plausible_at")


def sign_test(wins, losses):
    """Two-sided exact sign test p-value (ties dropped)."""
    n = wins + losses
    if n == 0:
        return 1.0
    k = min(wins, losses)
    p = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * p)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", type=Path, help="report folders (first: the baseline)")
    ap.add_argument("--diffs", type=Path, help="write every plausible patch of each run here (Markdown)")
    args = ap.parse_args()
    runs = {str(p): load(p) for p in args.runs}
    for name, reports in runs.items():
        plausible = sorted(p for p, r in reports.items() if r.get("outcome") == "plausible")
        orders = sorted({(r.get("details") or {}).get("order", "?") for r in reports.values()})
        sus = sorted({(r.get("details") or {}).get("suspiciousness", "?") for r in reports.values()})
        print(f"{name}: {len(reports)} programs reported, {len(plausible)} plausible; order {orders}, suspiciousness {sus}")
        outcomes = {}
        for r in reports.values():
            outcomes[r.get("outcome")] = outcomes.get(r.get("outcome"), 0) + 1
        print(f"  outcomes: {dict(sorted(outcomes.items(), key=str))}")
    names = list(runs)
    base = runs[names[0]]
    for other in names[1:]:
        o = runs[other]
        common = sorted(set(base) & set(o))
        missing = sorted(set(base) ^ set(o))
        both = [p for p in common if first(base[p]) and first(o[p])]
        print(f"\n{names[0]} vs {other}: {len(common)} programs in both"
              + (f" (not in both: {', '.join(missing)})" if missing else ""))
        print(f"  plausible on these: {sum(1 for p in common if first(base[p]))} vs {sum(1 for p in common if first(o[p]))}")
        if both:
            a, b = [first(base[p]) for p in both], [first(o[p]) for p in both]
            wins = sum(1 for x, y in zip(a, b) if y < x)
            losses = sum(1 for x, y in zip(a, b) if y > x)
            print(f"  both fixed: {len(both)}; median validations to the first plausible patch: "
                  f"{statistics.median(a)} vs {statistics.median(b)}; total {sum(a)} vs {sum(b)}")
            print(f"  {other} needs fewer on {wins}, more on {losses}, as many on {len(both) - wins - losses} "
                  f"(sign test p = {sign_test(wins, losses):.3f})")
        print("  program | " + " | ".join([names[0], other]))
        for p in common:
            cell = lambda r: f"{first(r)} ({r.get('outcome')})" if first(r) else f"- ({r.get('outcome')})"
            print(f"  {p} | {cell(base[p])} | {cell(o[p])}")
    if args.diffs:
        with args.diffs.open("w") as out:
            for name, reports in runs.items():
                out.write(f"# {name}\n\n")
                for p, r in sorted(reports.items()):
                    for c in (r.get("details") or {}).get("plausible") or []:
                        out.write(f"## {p} (validated #{c['validated_at']}, {c['template']}: {c['summary']})\n")
                        out.write(f"```diff\n{c['diff']}\n```\n")
        print(f"\nplausible patches: {args.diffs}", file=sys.stderr)


if __name__ == "__main__":
    main()
