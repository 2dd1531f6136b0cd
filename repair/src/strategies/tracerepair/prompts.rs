//! TraceRepair's prompts and the parsers of its answers (../shared/papers/tracerepair.txt,
//! §3.2-3.4). Prompts are constants and functions here, so a replay recording
//! ([`crate::llm::ReplayClient`]) breaks exactly when a prompt changes.

use super::probe::ProbeRequest;
use crate::run::bug::Problem;

/// The three repair agents of the debate (§3.3, "Strategy Initialization").
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Agent {
    /// Robustness: guards, boundaries, null/empty handling, preconditions.
    Defensive,
    /// The root defect in the data or control flow, found where the trace diverges.
    Causal,
    /// What the method is meant to compute: its contract and domain constraints.
    Semantic,
}

/// The agents in debate order.
pub const AGENTS: [Agent; 3] = [Agent::Defensive, Agent::Causal, Agent::Semantic];

impl Agent {
    /// The agent's name as the report and the prompts give it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Agent::Defensive => "defensive",
            Agent::Causal => "causal",
            Agent::Semantic => "semantic",
        }
    }

    /// The agent's system prompt: its strategy.
    #[must_use]
    pub fn system_prompt(self) -> &'static str {
        match self {
            Agent::Defensive => DEFENSIVE_PROMPT,
            Agent::Causal => CAUSAL_PROMPT,
            Agent::Semantic => SEMANTIC_PROMPT,
        }
    }
}

/// The defensive agent's system prompt.
pub const DEFENSIVE_PROMPT: &str = "You are the defensive repair agent in a debate about a bug. You look for \
missing guards: boundaries, off-by-one limits, null or empty inputs, invalid states that the runtime trace shows \
reaching code that cannot handle them. Fix by adding or correcting the precondition or boundary. Quote code exactly \
as it appears in the file.";

/// The causal agent's system prompt.
pub const CAUSAL_PROMPT: &str = "You are the causal repair agent in a debate about a bug. You follow the data and \
control flow in the runtime trace to the first point where a value or a branch diverges from what a correct run \
would show, and fix the root defect there, not its symptom. Quote code exactly as it appears in the file.";

/// The semantic agent's system prompt.
pub const SEMANTIC_PROMPT: &str = "You are the semantic repair agent in a debate about a bug. You work out what the \
method is meant to compute from its name, its contract, its documentation and the tests, and make the code compute \
exactly that. Quote code exactly as it appears in the file.";

/// The probe agent's and the judge's system prompt.
pub const SYSTEM_PROMPT: &str = "You are an expert software engineer fixing a bug in a project. Be precise and \
brief. Quote code exactly as it appears in the file.";

/// How every patch is asked for.
pub const PATCH_FORMAT: &str = "Start with one line `ROOT CAUSE: <one or two sentences>`, then write the fix as a \
unified diff against the file (or as SEARCH/REPLACE blocks). Quote the code exactly, without the line numbers, and \
change only what the fix needs.";

/// Feedback for a candidate cut off at the token limit before its first complete edit.
pub const CUT_OFF_PATCH: &str =
    "the reply was cut off at the token limit before a complete edit; write a shorter patch";

/// Most probes the probe prompt asks for.
pub const MAX_PROBE_LINES: usize = 8;

/// The probe agent's request (§3.2, "Targeted Variable Identification").
pub(super) fn probe_prompt(problem: &Problem) -> String {
    format!(
        "{code}\nWhich variables, at which lines, would show where this method goes wrong in the failing test? \
         Choose loop counters, the operands of conditions, indices, accumulators and values about to be returned. \
         Answer with at most {MAX_PROBE_LINES} lines, each `PROBE L<line>: <variable>, <variable>` naming a line \
         of the method above and the variables to print just before and just after it runs. Name only variables \
         that are in scope at that line.",
        code = code_and_failure(problem),
    )
}

/// The buggy method with line numbers and the failing tests' report.
fn code_and_failure(problem: &Problem) -> String {
    format!(
        "Buggy {lang} code from `{file}`:\n```{lang}\n{code}```\nThe failing tests report:\n```\n{failure}\n```\n",
        lang = problem.lang(),
        file = problem.bug.file.display(),
        code = problem.numbered,
        failure = problem.failure.trim_end(),
    )
}

/// The trace block of every debate prompt: the last probe lines, or why there are none.
pub(super) fn trace_block(trace: &str, truncated: bool, static_fallback: bool) -> String {
    if static_fallback || trace.trim().is_empty() {
        return "No runtime trace is available (the instrumented program could not be built or printed nothing): \
                reason from the code and the failure.\n"
            .to_string();
    }
    let cut = if truncated { " (truncated: only its end, the state just before the failure, is shown)" } else { "" };
    format!(
        "Runtime trace of the failing tests{cut}. Each line is `L<line> <variable>=<value>` after that line ran, \
         `L<line> before: <variable>=<value>` just before it, or `L<line> branch=<arm>` for the arm of an `if` \
         that ran:\n```\n{}```\n",
        trace
    )
}

/// Generation (Algorithm 1, line 14): the agent's first proposals.
pub(super) fn propose_prompt(problem: &Problem, trace: &str) -> String {
    format!("{}{trace}\nFix the bug with your strategy. {PATCH_FORMAT}", code_and_failure(problem))
}

/// Critique (eq. 1): the attacker checks the defender's patch against the trace.
pub(super) fn critique_prompt(problem: &Problem, trace: &str, defender: &str, patch: &str, result: &str) -> String {
    format!(
        "{}{trace}\nThe {defender} agent proposes this patch:\n```\n{patch}\n```\nValidation result:\n```\n{result}\n\
         ```\nDoes the patch contradict what the runtime trace shows (a value, a branch, how often a loop ran)? If \
         it does, answer `CRITIQUE: <the contradiction>`, citing the trace lines it rests on (e.g. `L12 total=3`). \
         If the patch is consistent with the trace, answer `CONSISTENT`.",
        code_and_failure(problem)
    )
}

/// Update (eq. 2): the defender refines its patch against the critiques.
pub(super) fn update_prompt(
    problem: &Problem,
    trace: &str,
    patch: &str,
    result: &str,
    critiques: &[(String, String)],
    similar: &str,
) -> String {
    let mut s = format!(
        "{}{trace}\nYour current patch:\n```\n{patch}\n```\nValidation result:\n```\n{result}\n```\n",
        code_and_failure(problem)
    );
    if critiques.is_empty() {
        s.push_str("The other agents found no contradiction with the trace, but the patch is not plausible yet.\n");
    } else {
        s.push_str("Critiques from the other agents:\n");
        for (from, text) in critiques {
            s.push_str(&format!("- {from}: {text}\n"));
        }
    }
    if !similar.is_empty() {
        s.push_str("\nSimilar historical bug fixes for the root cause you stated (external repair ingredients):\n");
        s.push_str(similar);
    }
    s.push_str(&format!(
        "\nWrite a corrected patch of the original code (not on top of your patch) that answers the critiques \
         and agrees with the trace. {PATCH_FORMAT}"
    ));
    s
}

/// Judge synthesis (§3.4): every proposal, critique and the trace, one final patch.
pub(super) fn judge_prompt(problem: &Problem, trace: &str, history: &str, critiques: &str) -> String {
    format!(
        "{}{trace}\nThree repair agents debated this bug and none found a patch that passes the tests. Their \
         proposals, round by round, with validation results:\n{history}\nTheir critiques:\n{critiques}\n\
         Combine the parts of the proposals that agree with the trace, discard every inference the trace \
         contradicts, and write one final patch of the original code. {PATCH_FORMAT}",
        code_and_failure(problem)
    )
}

/// The probes in a probe answer: lines `PROBE L<line>: <var>, <var>` (case-insensitive, the
/// colon and markdown backticks optional, variables separated by commas or spaces), at most
/// [`MAX_PROBE_LINES`] in order; lines with no number or no variable are ignored.
#[must_use]
pub fn parse_probe_requests(text: &str) -> Vec<ProbeRequest> {
    let mut out: Vec<ProbeRequest> = Vec::new();
    for raw in text.lines() {
        let line = raw.replace('`', "").replace("**", "");
        let line = line.trim().trim_start_matches(['-', '*', ' ']);
        let Some(rest) = line.get(..6).filter(|p| p.eq_ignore_ascii_case("probe ")).map(|_| &line[6..]) else {
            continue;
        };
        let rest = rest.trim_start().trim_start_matches(['L', 'l']);
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let Ok(at) = digits.parse::<usize>() else { continue };
        let vars: Vec<String> = rest[digits.len()..]
            .trim_start_matches(':')
            .split([',', ' ', ';'])
            .map(|v| v.trim().trim_end_matches('.').to_string())
            .filter(|v| !v.is_empty())
            .collect();
        if vars.is_empty() {
            continue;
        }
        let room = out.len() < MAX_PROBE_LINES;
        match out.iter_mut().find(|r| r.line == at) {
            Some(r) => {
                for v in vars {
                    if !r.vars.contains(&v) {
                        r.vars.push(v);
                    }
                }
            }
            None if room => out.push(ProbeRequest { line: at, vars }),
            None => {}
        }
    }
    out
}

/// The root cause an answer states: the rest of the first line that starts with `ROOT
/// CAUSE:` (case-insensitive, markdown emphasis ignored), `None` when there is none or it
/// says `none`/`unknown`.
#[must_use]
pub fn stated_root_cause(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let l = l.replace("**", "");
        let l = l.trim();
        let rest = l.get(..11).filter(|p| p.eq_ignore_ascii_case("root cause:")).map(|_| l[11..].trim())?;
        let none = ["", "none", "unknown", "n/a"].contains(&rest.trim_end_matches('.').to_lowercase().as_str());
        (!none).then(|| rest.to_string())
    })
}

/// A critique answer: `Some(text)` after `CRITIQUE:` (to the end of the answer), `None`
/// for `CONSISTENT` or no marker.
#[must_use]
pub fn parse_critique(text: &str) -> Option<String> {
    let upper = text.to_uppercase();
    let at = upper.find("CRITIQUE:")?;
    let body = text[at + "CRITIQUE:".len()..].trim();
    (!body.is_empty()).then(|| body.to_string())
}

/// Whether `critique` cites the trace: it names a line label (`L12`) or a `name=value`
/// observation that appears in `trace`. An empty trace needs no citation (the static
/// fallback: critiques are then accepted as they are).
#[must_use]
pub fn cites_trace(critique: &str, trace: &str) -> bool {
    if trace.trim().is_empty() {
        return true;
    }
    let words: Vec<&str> = critique
        .split(|c: char| c.is_whitespace() || matches!(c, '`' | ',' | ';' | '(' | ')' | '"' | '\''))
        .map(|w| w.trim_end_matches(['.', ':']))
        .filter(|w| !w.is_empty())
        .collect();
    trace.lines().any(|l| {
        let mut parts = l.split_whitespace();
        let label = parts.next().unwrap_or("");
        let observed = parts.last().unwrap_or("");
        (label.starts_with('L') && label.len() > 1 && words.contains(&label))
            || (observed.contains('=') && words.contains(&observed))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_requests_are_parsed_merged_and_bounded() {
        let text = "Here:\nPROBE L6: i, total\n- probe `L7` total\nPROBE L6: n\nPROBE: nothing\nPROBE L9:\n";
        let got = parse_probe_requests(text);
        assert_eq!(
            got,
            vec![
                ProbeRequest { line: 6, vars: vec!["i".into(), "total".into(), "n".into()] },
                ProbeRequest { line: 7, vars: vec!["total".into()] },
            ]
        );
        let many: String = (1..20).map(|i| format!("PROBE L{i}: x\n")).collect();
        assert_eq!(parse_probe_requests(&many).len(), MAX_PROBE_LINES);
    }

    #[test]
    fn stated_root_causes_are_read_from_their_line() {
        assert_eq!(
            stated_root_cause("x\n**Root cause:** the loop stops early.\n```diff"),
            Some("the loop stops early.".into())
        );
        assert_eq!(stated_root_cause("ROOT CAUSE: none\n"), None);
        assert_eq!(stated_root_cause("no marker"), None);
    }

    #[test]
    fn critiques_must_cite_the_trace() {
        let trace = "L5 total=0\nL6 branch=then\nL7 total=45\n";
        assert!(cites_trace("the trace shows total=45 at L7, so n is never added", trace));
        assert!(cites_trace("L6 shows the then arm ran", trace));
        assert!(!cites_trace("the loop looks wrong to me", trace));
        assert!(!cites_trace("L99 shows nothing", trace));
        assert!(cites_trace("anything goes without a trace", ""));
        assert_eq!(parse_critique("CRITIQUE: L7 total=45 contradicts it"), Some("L7 total=45 contradicts it".into()));
        assert_eq!(parse_critique("CONSISTENT"), None);
        assert_eq!(parse_critique("critique:   "), None);
    }
}
