"""fixdex's action kinds in the action-retrieval harness's label names (../shared/eval/labels.py),
and the bootstrap CI of a mean, shared by scripts/action-agreement.py,
scripts/action-suggest-eval.py and scripts/fit-suggest.py."""
import random

# Ours -> the harness's names. CHANGE_LITERAL splits by its tokens (harness_name); statement-level
# kinds the harness has no name for are OTHER there.
MAP = {
    "MORE_ARGUMENTS": "OVERLOAD_METHOD_MORE_ARGS",
    "FEWER_ARGUMENTS": "OVERLOAD_METHOD_DELETED_ARGS",
    "CHANGE_CALLER": "CHANGE_CALLER_IN_FUNCTION_CALL",
    "ADD_GUARD": "ADD_GUARD_CONDITION",
    "WRAP_TRY_CATCH": "ADD_TRY_CATCH",
    "INSERT_STATEMENT": "OTHER",
    "DELETE_STATEMENT": "OTHER",
}


def harness_name(kind, actions):
    """The harness's name of our `kind`, given the concrete actions (dicts with kind, before,
    after) that carry it: CHANGE_LITERAL of true/false tokens is SWAP_BOOLEAN_LITERAL."""
    if kind == "CHANGE_LITERAL":
        act = next((a for a in actions if a.get("kind") == kind), {})
        toks = {t.lower() for t in (act.get("before", "") + " " + act.get("after", "")).split()}
        return "SWAP_BOOLEAN_LITERAL" if toks and toks <= {"true", "false"} else "CHANGE_STRING_LITERAL"
    return MAP.get(kind, kind)


def ci(xs, n=2000, seed=7):
    """The mean of `xs` and its 95 % bootstrap CI over its items: (mean, low, high)."""
    rng = random.Random(seed)
    ms = sorted(sum(xs[rng.randrange(len(xs))] for _ in xs) / len(xs) for _ in range(n))
    return sum(xs) / len(xs), ms[int(0.025 * n)], ms[int(0.975 * n) - 1]
