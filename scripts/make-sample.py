#!/usr/bin/env python3
"""Validate the fixdex sample bug-fix pairs (BFPs) and write data/sample/sample.jsonl.

The pairs live as data under data/sample/pairs/, one directory per pair, id sample:<lang>/<slug>:
<lang>/<slug>/pair.json (project, file, category, description, root_cause) and the code as plain
text in <lang>/<slug>/buggy.<ext> and fixed.<ext> (.java or .py).  pairs/order.txt lists every
<lang>/<slug> in output order, grouped by category under '#' comment lines.  Every pair was
written by the fixdex project; none is copied from a third-party dataset.  The corpus is
licensed MIT OR Apache-2.0, like the rest of the project.

Usage:
    python3 scripts/make-sample.py            # writes data/sample/sample.jsonl
    python3 scripts/make-sample.py --check    # validate only, write nothing
    python3 scripts/make-sample.py --out PATH # write somewhere else

The output is deterministic: order.txt order, fixed key order, UTF-8, one JSON object per line.
Nothing is written, and the exit status is 1, if a check fails: unique ids, every pair directory
listed once, buggy != fixed, no duplicate pairs, Python snippets parse, Java snippets have
balanced brackets, non-empty root causes, known categories, enough records per language,
category and project.  Prints per-category and per-project Markdown tables on stdout.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import re
import sys
import textwrap
from collections import Counter
from pathlib import Path

SOURCE = "fixdex-sample"
LICENSE = "MIT OR Apache-2.0"
EXTENSIONS = {"java": "java", "python": "py"}  # language -> extension of buggy/fixed files
REPO = Path(__file__).resolve().parent.parent
PAIRS = REPO / "data" / "sample" / "pairs"
ORDER_FILE = "order.txt"
PAIR_FILE = "pair.json"

# Bug categories (meta.category), in the order of the summary table.
CATEGORIES = """
    off-by-one wrong-operator missing-null-check float-comparison resource-leak
    boundary-condition swapped-arguments integer-division wrong-variable mutable-default-argument
    concurrent-modification wrong-equality missing-return-or-break exception-handling
    recursion-base-case accumulator-init string-encoding concurrency hashcode-equals date-time
    regex-escaping
""".split()


def read_code(path: Path) -> str:
    """Read a snippet: dedent, drop surrounding blank lines, end with one newline."""
    return textwrap.dedent(path.read_text(encoding="utf-8")).strip("\n") + "\n"


def make_diff(buggy: str, fixed: str, file: str) -> str:
    lines = buggy.splitlines(keepends=True), fixed.splitlines(keepends=True)
    return "".join(difflib.unified_diff(*lines, f"a/{file}", f"b/{file}"))


def load_record(lang: str, slug: str) -> dict:
    """Build the JSONL record of data/sample/pairs/<lang>/<slug>/ (key order is the output's)."""
    pair = PAIRS / lang / slug
    meta = json.loads((pair / PAIR_FILE).read_text(encoding="utf-8"))
    buggy, fixed = (read_code(pair / f"{name}.{EXTENSIONS[lang]}") for name in ("buggy", "fixed"))
    return {
        "id": f"sample:{lang}/{slug}",
        "source": SOURCE,
        "project": meta["project"],
        "language": lang,
        "buggy_code": buggy,
        "fixed_code": fixed,
        "root_cause": " ".join(meta["root_cause"].split()),
        "description": meta["description"],
        "diff": make_diff(buggy, fixed, meta["file"]),
        "license": LICENSE,
        "meta": {"category": meta["category"], "file": meta["file"]},
    }


def load_records() -> tuple[list[dict], list[str]]:
    """Read every pair listed in order.txt; errors name unlisted, missing or malformed pairs."""
    lines = (PAIRS / ORDER_FILE).read_text(encoding="utf-8").splitlines()
    entries = [x.strip() for x in lines if x.strip() and not x.startswith("#")]
    on_disk = {f"{d.parent.name}/{d.name}" for d in PAIRS.glob("*/*") if d.is_dir()}
    errors = [f"{e}: not listed in {ORDER_FILE}" for e in sorted(on_disk - set(entries))]
    records = []
    for entry in entries:
        lang, _, slug = entry.partition("/")
        if entry not in on_disk or lang not in EXTENSIONS:
            errors.append(f"{entry}: in {ORDER_FILE}, but not a <java|python>/<slug> directory")
            continue
        try:
            records.append(load_record(lang, slug))
        except (OSError, ValueError, KeyError) as exc:
            errors.append(f"{entry}: cannot read the pair: {type(exc).__name__}: {exc}")
    return records, errors


_JAVA_PAIRS = {")": "(", "]": "[", "}": "{"}


def java_brackets_balanced(code: str) -> str | None:
    """Return None if (), [] and {} are balanced, else an error message.

    String, text-block and char literals and // and /* */ comments are skipped.
    """
    stack: list[tuple[str, int]] = []
    i, n, line = 0, len(code), 1
    while i < n:
        c = code[i]
        if c == "\n":
            line += 1
            i += 1
        elif code.startswith("//", i):
            j = code.find("\n", i)
            i = n if j < 0 else j
        elif code.startswith("/*", i) or code.startswith('"""', i):
            end = "*/" if c == "/" else '"""'
            j = code.find(end, i + len(end))
            if j < 0:
                return f"line {line}: unterminated {'comment' if c == '/' else 'text block'}"
            line += code.count("\n", i, j)
            i = j + len(end)
        elif c in "\"'":
            j = i + 1
            while j < n and code[j] != c:
                if code[j] == "\\":
                    j += 1
                elif code[j] == "\n":
                    return f"line {line}: unterminated {c} literal"
                j += 1
            if j >= n:
                return f"line {line}: unterminated {c} literal"
            i = j + 1
        else:
            if c in "([{":
                stack.append((c, line))
            elif c in ")]}":
                if not stack or stack[-1][0] != _JAVA_PAIRS[c]:
                    return f"line {line}: unexpected {c!r}"
                stack.pop()
            i += 1
    if stack:
        return f"line {stack[-1][1]}: unclosed {stack[-1][0]!r}"
    return None


def python_parse_error(code: str) -> str | None:
    try:
        ast.parse(textwrap.dedent(code))
    except SyntaxError as exc:
        return f"line {exc.lineno}: {exc.msg}"
    return None


def validate_record(rec: dict) -> list[str]:
    """The checks on one record alone, as 'what is wrong' messages."""
    errors = []
    if not re.fullmatch(r"sample:(java|python)/[a-z0-9]+(?:-[a-z0-9]+)*", rec["id"]):
        errors.append("malformed id")
    if rec["meta"]["category"] not in CATEGORIES:
        errors.append(f"unknown category {rec['meta']['category']!r}")
    for field in ("project", "description", "root_cause", "buggy_code", "fixed_code"):
        if not rec[field].strip():
            errors.append(f"empty {field}")
    if rec["buggy_code"] == rec["fixed_code"] or not rec["diff"].strip():
        errors.append("buggy_code == fixed_code")
    for field, lo in (("buggy_code", 5), ("fixed_code", 2)):
        # The buggy function is 5-40 lines; a fix may legitimately shrink it.
        lines = rec[field].count("\n")
        if not lo <= lines <= 40:
            errors.append(f"{field} has {lines} lines")
        check = python_parse_error if rec["language"] == "python" else java_brackets_balanced
        if err := check(rec[field]):
            errors.append(f"{field} does not parse: {err}")
    ext = EXTENSIONS[rec["language"]]
    if not rec["meta"]["file"].endswith("." + ext):
        errors.append(f"{rec['language']} record whose meta.file does not end in .{ext}")
    return errors


def validate(records: list[dict]) -> list[str]:
    """Per-record checks, then duplicates and coverage across the corpus."""
    errors: list[str] = []
    seen_pairs: dict[tuple[str, str], str] = {}
    for rec in records:
        errors += [f"{rec['id']}: {e}" for e in validate_record(rec)]
        pair = (rec["buggy_code"], rec["fixed_code"])
        if pair in seen_pairs:
            errors.append(f"{rec['id']}: same (buggy, fixed) pair as {seen_pairs[pair]}")
        seen_pairs.setdefault(pair, rec["id"])
    ids = Counter(r["id"] for r in records)
    errors += [f"{rid}: duplicate id" for rid, n in ids.items() if n > 1]
    langs = Counter(r["language"] for r in records)
    errors += [f"only {langs[x]} {x} records (want >= 55)" for x in EXTENSIONS if langs[x] < 55]
    by_cat = Counter(r["meta"]["category"] for r in records)
    errors += [f"category {c} has only {by_cat[c]} records" for c in CATEGORIES if by_cat[c] < 3]
    for project, count in Counter(r["project"] for r in records).items():
        project_langs = {r["language"] for r in records if r["project"] == project}
        if count < 3 or project_langs != set(EXTENSIONS):
            errors.append(f"project {project} should have several records in both languages")
    return errors


def summary_tables(records: list[dict]) -> str:
    """Markdown: records per category and language, then records per project."""
    counts = Counter((r["meta"]["category"], r["language"]) for r in records)
    rows = ["| category | java | python | total |", "|---|---:|---:|---:|"]
    for cat in CATEGORIES:
        j, p = counts[(cat, "java")], counts[(cat, "python")]
        rows.append(f"| {cat} | {j} | {p} | {j + p} |")
    langs = Counter(r["language"] for r in records)
    rows.append(f"| **total** | **{langs['java']}** | **{langs['python']}** | **{len(records)}** |")
    projects = Counter(r["project"] for r in records)
    rows += ["", "| project | records |", "|---|---:|"]
    rows += [f"| {project} | {projects[project]} |" for project in sorted(projects)]
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=REPO / "data" / "sample" / "sample.jsonl",
                    help="output JSONL path (default: data/sample/sample.jsonl)")
    ap.add_argument("--check", action="store_true", help="validate only, do not write")
    args = ap.parse_args(argv)

    records, errors = load_records()
    errors += validate(records)
    if errors:
        for e in errors:
            print(f"error: {e}", file=sys.stderr)
        print(f"{len(errors)} validation error(s); nothing written", file=sys.stderr)
        return 1

    if not args.check:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        with open(args.out, "w", encoding="utf-8", newline="\n") as f:
            f.writelines(json.dumps(rec, ensure_ascii=False) + "\n" for rec in records)
        print(f"wrote {len(records)} records to {args.out}", file=sys.stderr)

    print(summary_tables(records))
    return 0


if __name__ == "__main__":
    sys.exit(main())
