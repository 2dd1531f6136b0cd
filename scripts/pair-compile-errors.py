#!/usr/bin/env python3
"""Do two-edit candidates mend the compile errors of their parts? (Issue 32: the evidence for
skipping a pair one of whose edits did not compile alone, `Uncompiled` in
repair/src/strategies/patterns/pairs.rs.)

For every bug of a `fixdex eval ... --strategy patterns` run folder, each validated TWO_EDITS
candidate is matched to its two single edits by its origin ("TWO_EDITS: A; B (lines ...)",
A and B the singles' summaries) and counted by whether one of its parts had the verdict
compile_error as a single edit, and by its own verdict. Pairs whose parts were not validated
alone, or whose summary cannot be split into two known ones, count as unmatched.

    python3 scripts/pair-compile-errors.py RUN_DIR
"""
import collections
import glob
import json
import re
import sys

LINES = re.compile(r" \(lines? [^)]*\)( from .*)?$")


def main():
    run = sys.argv[1]
    counts = collections.Counter()
    verdicts = collections.Counter()
    for path in sorted(glob.glob(f"{run}/bugs/*/report.json")):
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
        candidates = report.get("candidates") or []
        single = {}
        for c in candidates:
            origin = c.get("origin") or ""
            verdicts[c.get("verdict")] += 1
            name, _, rest = origin.partition(": ")
            if name != "TWO_EDITS" and rest:
                single.setdefault(LINES.sub("", rest), c["verdict"])
        for c in candidates:
            origin = c.get("origin") or ""
            if not origin.startswith("TWO_EDITS: "):
                continue
            body = LINES.sub("", origin[len("TWO_EDITS: "):])
            parts = next(
                ((body[:m.start()], body[m.end():]) for m in re.finditer("; ", body)
                 if body[:m.start()] in single and body[m.end():] in single),
                None,
            )
            if parts is None:
                counts[("unmatched", c["verdict"])] += 1
                continue
            failed = any(single[p] == "compile_error" for p in parts)
            counts[("a part did not compile" if failed else "parts compiled", c["verdict"])] += 1
    print(f"candidates by verdict: {dict(verdicts)}")
    print("two-edit candidates, by their parts' verdicts alone and their own:")
    for (group, verdict), n in sorted(counts.items()):
        print(f"  {group:24} {verdict:14} {n:6}")


if __name__ == "__main__":
    main()
