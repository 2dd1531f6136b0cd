"""The Java bug-fix pairs of the shared corpus's training corpora, shared by the analysis
scripts behind the patterns strategy's templates (scripts/jump-fixes.py,
scripts/method-names.py, scripts/repeated-token-fixes.py). The benchmarks (QuixBugs,
Defects4J, BugsInPy) and CodeXGLUE's abstracted code are never read."""
import json

CORPORA = ["manysstubs4j", "mined_git_history", "gitbug_java", "condefects"]


def java_rows(shared):
    """Every Java row (a dict: buggy_code, fixed_code, ...) of CORPORA under SHARED/data, in
    file order."""
    for corpus in CORPORA:
        with open(f"{shared}/data/{corpus}.jsonl", encoding="utf-8") as f:
            for line in f:
                row = json.loads(line)
                if row.get("language") == "java":
                    yield row
