#!/usr/bin/env python3
"""Where is the developer's fix in the patterns strategy's candidate list? (Issue 32: does an
unfixed Defects4J bug miss its fix by the budget, a rank past it, or by the templates, no
candidate is it?)

For every bug of a finished `fixdex eval defects4j --strategy patterns --localization perfect
--no-retrieval` run folder, runs `repair/examples/patterns_fixrank.rs` on the bug's primary file
and localized lines (the result's `localization`) in the work folder's buggy checkout, against
the developer's fixed file, and prints one row per bug: outcome, tier and first plausible
validation of the run, how many candidates the templates make, and the ranks of those graded
exact or AST (no test run). Then the counts: bugs whose fix is a candidate within the budget,
past it, or no candidate at all.

    cargo build --release --locked --workspace --example patterns_fixrank
    python3 scripts/d4j-fixrank.py RUN [--work-dir ~/.cache/fixdex/defects4j] [--budget N] [--json]

The budget is the run's `--max-validations` (its run.json) unless `--budget` is given. The run
folder does not record the run's `--work-dir`: give it when the run used another than the
default (the work folder used is said on stderr, and a bug whose folder it lacks is skipped).

A rank counts candidates, not validations (the strategy skips, unvalidated, those javac would
refuse where the syntax tree tells), and a multi-file fix is graded on its primary file only, so
a rank is an upper bound on the validations and "is the fix" means "makes the fix's change to
that file" (Cli-36 makes one of its two files' changes).
"""
import argparse
import json
import os
import subprocess
import sys

EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "release", "examples", "patterns_fixrank")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run", help="a run folder of `fixdex eval defects4j` (bugs/<BUG>/result.json)")
    ap.add_argument("--work-dir", default=os.path.expanduser("~/.cache/fixdex/defects4j"),
                    help="the run's --work-dir (bugs/<BUG>/buggy and fixed)")
    ap.add_argument("--budget", type=int, default=None,
                    help="the validations a fix must be within (default: the run's --max-validations)")
    ap.add_argument("--json", action="store_true", help="one JSON object per bug")
    a = ap.parse_args()
    if not os.access(EXAMPLE, os.X_OK):
        sys.exit(f"error: {EXAMPLE} not built: cargo build --release --locked --workspace --example patterns_fixrank")
    bugs_dir = os.path.join(a.run, "bugs")
    if not os.path.isdir(bugs_dir):
        sys.exit(f"error: {bugs_dir}: no such folder (is {a.run} a run folder?)")
    if a.budget is None:
        try:
            run = json.load(open(os.path.join(a.run, "run.json"), encoding="utf-8"))
            a.budget = int(run["settings"]["max_validations"])
        except (OSError, ValueError, KeyError, TypeError) as e:
            sys.exit(f"error: {os.path.join(a.run, 'run.json')}: no settings.max_validations ({e}): give --budget")
    print(f"work folder: {a.work_dir} (--work-dir); budget: {a.budget} validations", file=sys.stderr)
    counts = {"within": [], "past": [], "none": [], "skipped": []}
    key = lambda b: (b.split("-")[0], int(b.split("-")[1]) if b.split("-")[-1].isdigit() else 0)
    for bug in sorted(os.listdir(bugs_dir), key=key):
        path = os.path.join(bugs_dir, bug, "result.json")
        try:
            res = json.load(open(path, encoding="utf-8"))
        except (OSError, ValueError) as e:
            counts["skipped"].append(bug)
            print(f"{bug}: skipped: {path}: {e}", file=sys.stderr)
            continue
        loc = res.get("localization") or ""
        if not loc.startswith("perfect: ") or ":" not in loc[len("perfect: "):]:
            counts["skipped"].append(bug)
            print(f"{bug}: skipped: localization {loc!r} is not perfect localization", file=sys.stderr)
            continue
        spec = loc[len("perfect: "):]
        file, span = spec.rsplit(":", 1)
        first, last = span.split("-")
        root = os.path.join(a.work_dir, "bugs", bug)
        if not os.path.isdir(os.path.join(root, "buggy")):
            counts["skipped"].append(bug)
            print(f"{bug}: skipped: {root}/buggy: no such folder (give the run's --work-dir)", file=sys.stderr)
            continue
        cmd = [EXAMPLE, os.path.join(root, "buggy", file), os.path.join(root, "fixed", file), first, last,
               os.path.join(root, "buggy")]
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        if out.returncode != 0:
            counts["skipped"].append(bug)
            print(f"{bug}: skipped: patterns_fixrank failed: {out.stderr.strip()[-300:]}", file=sys.stderr)
            continue
        rank = json.loads(out.stdout.strip().splitlines()[-1])
        ranks = [f["rank"] for f in rank["fixes"]]
        where = "none" if not ranks else "within" if min(ranks) <= a.budget else "past"
        counts[where].append(bug)
        row = {"bug": bug, "outcome": res.get("outcome"), "tier": res.get("best_tier"),
               "first_plausible_validation": res.get("first_plausible_validation"),
               "validations": res.get("validations"), "candidates": rank["candidates"],
               "fix_ranks": ranks, "fix_templates": [f["template"] for f in rank["fixes"]], "where": where}
        if a.json:
            print(json.dumps(row))
        else:
            fix = ", ".join(f"{f['rank']} {f['template']} ({f['tier']})" for f in rank["fixes"]) or "-"
            tier = f" {row['tier']}" if row["tier"] else ""
            print(f"{bug:10} {row['outcome']}{tier} at {row['first_plausible_validation']}/{row['validations']}; "
                  f"{rank['candidates']} candidates; fix at: {fix}")
    summary = {k: len(v) for k, v in counts.items()}
    summary.update({f"{k}_bugs": v for k, v in counts.items() if k != "within"})
    print(json.dumps(summary) if a.json else
          f"fix a candidate within {a.budget}: {summary['within']}; past it: {summary['past']} {counts['past']}; "
          f"no candidate is the fix: {summary['none']}; skipped: {summary['skipped']} {counts['skipped']}")


if __name__ == "__main__":
    main()
