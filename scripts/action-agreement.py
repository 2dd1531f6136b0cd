#!/usr/bin/env python3
"""Agreement of the actions crate's primary labels with the harness's independent labeller.

Runs `actions/examples/classify.rs` over the harness corpus (the records of
$FIXDEX_SHARED/data/*.jsonl with a description, minus meta.benchmark_overlap, loaded with
the harness's own bfp.py) and compares each primary label, mapped to the harness's names,
with ../shared/eval/labels.py (an independent token-level labeller; nothing of its rules is
used here). Records are split by id: a SHA-1 of the id in the lowest fifth is the
development split (the one the crate's rules were built on), the rest is held out.

Prints, per split: agreement per reference label, overall agreement on the records the
reference calls non-OTHER (the issue's target: >= 85 %), agreement on its OTHER records,
and the most frequent disagreements.

    scripts/action-agreement.py                 # both splits
    scripts/action-agreement.py --limit 2000    # a quick look
    scripts/action-agreement.py --dump target/action-agreement/pairs.jsonl  # per record
"""
import argparse
import collections
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("FIXDEX_SHARED", ROOT.parent / "shared"))
if not SHARED.is_absolute():
    SHARED = (ROOT / SHARED).resolve()
sys.path.insert(0, str(SHARED / "eval"))
import bfp  # noqa: E402  (the harness's loader)
import labels  # noqa: E402  (the reference labeller)

sys.path.insert(0, str(ROOT / "scripts"))
from action_names import harness_name  # noqa: E402


def theirs(ours):
    """The harness name of one classify output line."""
    return harness_name(ours.get("label", "OTHER"), ours.get("actions", []))


def is_dev(rid):
    return int(hashlib.sha1(rid.encode()).hexdigest(), 16) % 5 == 0


def reference(recs, cache):
    """labels.py's label per id, cached on the labeller's and the corpus's identity."""
    key = hashlib.sha1(Path(labels.__file__).read_bytes() + str(len(recs)).encode()).hexdigest()[:12]
    path = cache / f"reference-{key}.json"
    if path.exists():
        return json.loads(path.read_text())
    ref = {r["id"]: labels.label_record(r) for r in recs}
    cache.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(ref))
    return ref


def classify(recs, binary):
    """Runs the classify example; returns ({id: output}, pairs per second)."""
    lines = "".join(json.dumps({k: r.get(k) for k in ("id", "buggy_code", "fixed_code", "language")}) + "\n"
                    for r in recs)
    start = time.perf_counter()
    out = subprocess.run([str(binary)], input=lines, capture_output=True, text=True, check=True)
    secs = time.perf_counter() - start
    res = {}
    for line in out.stdout.splitlines():
        o = json.loads(line)
        res[o["id"]] = o
    return res, len(recs) / secs


def build(profile):
    cmd = ["cargo", "build", "--workspace", "--locked", "--example", "classify"] + (["--release"] if profile == "release" else [])
    subprocess.run(cmd, cwd=ROOT, check=True)
    return ROOT / "target" / ("release" if profile == "release" else "debug") / "examples" / "classify"


def report(name, rows):
    """rows: (reference, ours mapped) pairs."""
    per = collections.defaultdict(lambda: [0, 0])
    for ref, got in rows:
        per[ref][0] += 1
        per[ref][1] += ref == got
    non_other = [(r, g) for r, g in rows if r != "OTHER"]
    agree = sum(r == g for r, g in non_other)
    print(f"\n## {name}: {len(rows)} records, {len(non_other)} non-OTHER by labels.py")
    print(f"agreement on non-OTHER: {agree}/{len(non_other)} = {100 * agree / max(1, len(non_other)):.1f} %")
    oth = per["OTHER"]
    print(f"agreement on OTHER: {oth[1]}/{oth[0]} = {100 * oth[1] / max(1, oth[0]):.1f} %")
    ours_non_other = [(r, g) for r, g in rows if g != "OTHER"]
    prec = sum(r == g for r, g in ours_non_other)
    print(f"precision of our non-OTHER labels: {prec}/{len(ours_non_other)} = "
          f"{100 * prec / max(1, len(ours_non_other)):.1f} %")
    print("\n| labels.py label | records | agree | % |\n| --- | ---: | ---: | ---: |")
    order = [lab for lab in labels.LABELS if lab in per]
    for lab in order:
        n, k = per[lab]
        print(f"| {lab} | {n} | {k} | {100 * k / n:.1f} |")
    conf = collections.Counter((r, g) for r, g in rows if r != g)
    print("\nmost frequent disagreements (labels.py -> ours):")
    for (r, g), n in conf.most_common(15):
        print(f"  {n:5d}  {r} -> {g}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, default=0, help="only the first N corpus records")
    ap.add_argument("--split", choices=["dev", "held-out", "both"], default="both")
    ap.add_argument("--profile", choices=["dev", "release"], default="dev")
    ap.add_argument("--binary", help="a built classify example (skips cargo build)")
    ap.add_argument("--dump", help="write {id, split, reference, ours, reason, actions} lines here")
    args = ap.parse_args()

    recs, _ = bfp.load_corpus(bfp.expand_files([str(SHARED / "data" / "*.jsonl")]))
    if args.limit:
        recs = recs[: args.limit]
    ref = reference(recs, ROOT / "target" / "action-agreement")
    binary = Path(args.binary) if args.binary else build(args.profile)
    ours, rate = classify(recs, binary)
    print(f"classified {len(recs)} records at {rate:.0f} pairs/s (process time included)")
    splits = {"dev": [], "held-out": []}
    dump = open(args.dump, "w") if args.dump else None
    for r in recs:
        o = ours[r["id"]]
        split = "dev" if is_dev(r["id"]) else "held-out"
        got = theirs(o)
        splits[split].append((ref[r["id"]], got))
        if dump:
            dump.write(json.dumps({"id": r["id"], "split": split, "language": r["language"], "reference": ref[r["id"]],
                                   "ours": got, "label": o.get("label"), "reason": o.get("reason"),
                                   "actions": [a["text"] for a in o.get("actions", [])]}) + "\n")
    for name in ("dev", "held-out"):
        if args.split in (name, "both"):
            report(name, splits[name])


if __name__ == "__main__":
    main()
