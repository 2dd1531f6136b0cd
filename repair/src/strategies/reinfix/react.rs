//! The reasoning phase: the direct root-cause question, then the ReAct loop over the
//! internal-ingredient tools, and the tool-calling protocol it runs on.
//!
//! # Protocols
//! The loop starts with the **native** protocol: requests carry `tools`, results go back as
//! `tool` messages. Some servers ignore `tools` (llama-cpp-python without a function-calling
//! chat format) or refuse them. The loop switches to the **text** protocol when
//! - the first [`SWITCH_AFTER_MISSES`] ReAct turns end in a reply without any tool call (no
//!   native `tool_calls`, no call written as text: a final answer without a root cause, or
//!   a cut-off reply without anything complete) and no call has worked yet, or
//! - the server answers a request with tools with an HTTP 4xx (not 401, 403, 404, 429)
//!   whose body names `tool` (`tools`, `tool_choice`), or
//! - a ReAct turn's replies stay unusable through its re-asks without any native tool call
//!   (empty, or prose without a call) and no call has worked yet.
//!
//! In the text protocol the system prompt names the tools with their arguments and the
//! exact `<tool_call>{"name": ..., "arguments": {...}}</tool_call>` format that
//! [`crate::llm::text::parse_text_calls`] reads, requests go without `tools`, and the
//! conversation restarts from the ReAct instruction (the failed native turns are dropped).
//! Calls parsed from text are answered with `user` messages in either protocol (plain chat
//! formats drop `tool` messages). [`RepairReport::tool_protocol`](crate::run::report::RepairReport::tool_protocol)
//! records what ran.
//!
//! # Failed turns
//! A final answer without a root cause is answered with a nudge; that exchange is dropped
//! from the history once the next turn is answered. A reply cut off at the token limit is
//! used for what it holds (a complete `ROOT CAUSE:` line; complete tool calls, see
//! [`crate::llm::turn`]); otherwise it ends the loop like running out of turns (the root
//! cause is `undetermined`), except in the native protocol before the switch, where it
//! counts as a reply without a tool call.

use serde_json::Value;

use super::prompts::{NUDGE_PROMPT, REACT_PROMPT, SYSTEM_PROMPT, TEXT_CALL_REMINDER, cause_prompt, parse_root_cause};
use crate::llm::context::{OLD_OUTPUT_CHARS, cut_middle};
use crate::llm::text::complete_part;
use crate::llm::{Action, LlmError, Message, Tool, Turn, TurnOptions, ValidToolCall, next_turn};
use crate::run::bug::Problem;
use crate::run::report::{Degraded, ToolCallRecord, ToolProtocol};
use crate::run::session::{Session, Stop};

/// ReAct replies without any tool call after which the loop switches to the text protocol.
pub const SWITCH_AFTER_MISSES: usize = 2;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Protocol {
    Native,
    Text,
}

/// The loop's state besides the history.
struct Loop {
    protocol: Protocol,
    /// Replies without any tool call while native and before any call worked.
    misses: usize,
    /// Whether any tool call was made.
    called: bool,
    /// Where the pending final-answer + nudge exchange starts in the history.
    nudge: Option<usize>,
    /// Messages never dropped from the history: system, task, first answer, instruction.
    pinned: usize,
    /// The task and first answer, for a restart in the text protocol.
    base: Vec<Message>,
    last_text: String,
}

/// What to do after a turn.
enum Next {
    Continue,
    Cause(String),
    End(String),
}

/// Reasoning phase: a root cause, first without donors, then with the internal tools.
pub(super) fn reason(problem: &Problem, run: &mut Session<'_>, steps: usize) -> Result<String, Stop> {
    let mut base = vec![Message::user(cause_prompt(problem))];
    let req = run.request(vec![Message::system(SYSTEM_PROMPT), base[0].clone()]);
    let first = run.sample_or_degrade(req, &Degraded::at("root_cause", None, None))?;
    if let Some(first) = first.and_then(|v| v.into_iter().next()) {
        let whole = if first.cut_off { complete_part(&first.text) } else { &first.text };
        if let Some(cause) = parse_root_cause(whole) {
            run.report.root_cause_source = Some("without_donor".into());
            return Ok(cause);
        }
        base.push(Message::assistant(cut_middle(&first.text, OLD_OUTPUT_CHARS)));
    }
    let tools: Vec<Tool> =
        run.toolbox.specs().into_iter().map(|s| Tool::function(s.name, s.description, s.parameters)).collect();
    let mut messages = start(&base, Protocol::Native, &tools);
    let mut state = Loop {
        protocol: Protocol::Native,
        misses: 0,
        called: false,
        nudge: None,
        pinned: messages.len(),
        base,
        last_text: String::new(),
    };
    run.report.tool_protocol = Some(ToolProtocol { protocol: "native", switched_after_call: None, reason: None });
    let steps = steps.max(1);
    let mut note = format!("the {steps} ReAct turns ran out before the model stated a root cause");
    for step in 1..=steps {
        match react_turn(run, step, &mut state, &mut messages, &tools)? {
            Next::Continue => {}
            Next::Cause(cause) => {
                run.report.root_cause_source = Some("react".into());
                return Ok(cause);
            }
            Next::End(why) => {
                note = why;
                break;
            }
        }
        if state.protocol == Protocol::Native && !state.called && state.misses >= SWITCH_AFTER_MISSES {
            let reason = format!(
                "the first {SWITCH_AFTER_MISSES} ReAct replies held no tool call (native or text): the server \
                 seems to ignore `tools`"
            );
            switch_to_text(run, &mut state, &mut messages, &tools, reason);
        }
    }
    // Out of ReAct turns, or a turn failed: go on with the best statement we have.
    run.report.root_cause_source = Some("undetermined".into());
    run.report.root_cause_note = Some(note);
    // The model's last statement stands in, unless it only repeats fixdex's instructions
    // (a small model echoes the nudge) or says there is none.
    let text = state.last_text.trim();
    let usable = !text.is_empty() && parse_root_cause(&format!("ROOT CAUSE: {text}")).is_some();
    Ok(if usable { text.into() } else { "undetermined (the model did not state a root cause)".into() })
}

/// One ReAct turn: ask, then run the tools or read the answer.
fn react_turn(
    run: &mut Session<'_>,
    step: usize,
    state: &mut Loop,
    messages: &mut Vec<Message>,
    tools: &[Tool],
) -> Result<Next, Stop> {
    run.check_time()?;
    let mut req = run.request(messages.clone());
    req.tools = tools.to_vec();
    let opts = TurnOptions {
        max_reasks: run.config().max_reasks,
        allow_final: true,
        text_protocol: state.protocol == Protocol::Text,
    };
    let client = run.client();
    // Whether the re-asks ran out without a single native tool call in any reply.
    let mut without_calls = false;
    let result = run.send(&mut req, state.pinned, |r, ledger| {
        let turn = next_turn(client, r, &opts, ledger);
        without_calls |= matches!(&turn, Err(LlmError::ReaskLimit { native_calls_seen: false, .. }));
        turn
    });
    *messages = req.messages;
    let native_unproven = state.protocol == Protocol::Native && !state.called;
    let turn = match result {
        Ok(turn) => turn,
        Err(stop) => return failed_turn(run, (step, native_unproven && without_calls), state, messages, tools, stop),
    };
    run.count_usable();
    if let Some(at) = state.nudge.take() {
        messages.truncate(at);
    }
    let answer = Answer { step, native_unproven, max_tokens: req.max_tokens };
    Ok(read_turn(run, answer, state, messages, turn))
}

/// What [`read_turn`] needs to know of the turn besides its reply.
#[derive(Clone, Copy)]
struct Answer {
    step: usize,
    /// Native protocol, and no tool call has worked yet.
    native_unproven: bool,
    /// The request's reply limit, for the cut-off note.
    max_tokens: Option<u32>,
}

/// A turn whose request failed with `stop`: switch protocols, degrade, or end the run.
/// `silent` says the replies stayed unusable without any native call while the native
/// protocol was unproven.
fn failed_turn(
    run: &mut Session<'_>,
    (step, silent): (usize, bool),
    state: &mut Loop,
    messages: &mut Vec<Message>,
    tools: &[Tool],
    stop: Stop,
) -> Result<Next, Stop> {
    match stop {
        Stop::ToolsRefused(reason) if state.protocol == Protocol::Native => {
            let reason = format!("the server refused the request with tools: {reason}");
            switch_to_text(run, state, messages, tools, reason);
            Ok(Next::Continue)
        }
        // Replies to requests with tools that stay unusable without a single native call
        // (empty, or prose that holds no call) before any call worked: the server's chat
        // format most likely drops `tools` (llama-cpp-python's chatml-function-calling
        // answers Gemma 3 270M with empty messages), so the text protocol gets its chance.
        // Bad native calls are the model's fault, not the protocol's: they degrade.
        Stop::Unusable(reason) if silent => {
            let reason = format!("the replies to ReAct turn {step} with tools stayed unusable: {reason}");
            switch_to_text(run, state, messages, tools, reason);
            Ok(Next::Continue)
        }
        Stop::Unusable(reason) => {
            let note = format!("the model's reply in ReAct turn {step} stayed unusable: {reason}");
            run.degrade(Degraded { turn: Some(step), reason, ..Degraded::at("react", None, None) });
            Ok(Next::End(note))
        }
        stop => Err(stop),
    }
}

/// Reads a usable turn: runs its tool calls, or takes its root cause, or nudges.
fn read_turn(run: &mut Session<'_>, answer: Answer, state: &mut Loop, messages: &mut Vec<Message>, turn: Turn) -> Next {
    let Answer { step, native_unproven, max_tokens } = answer;
    match turn.action {
        Action::ToolCalls(calls) => {
            state.called = true;
            let as_text = turn.from_text || state.protocol == Protocol::Text;
            messages.push(turn.message);
            run_tools(run, step, &calls, as_text, messages);
            Next::Continue
        }
        Action::Final(text) => {
            if let Some(cause) = parse_root_cause(&text) {
                return Next::Cause(cause);
            }
            state.misses += usize::from(native_unproven);
            state.last_text = text;
            state.nudge = Some(messages.len());
            messages.push(turn.message);
            messages.push(Message::user(NUDGE_PROMPT));
            Next::Continue
        }
        Action::CutOff(text) => {
            if let Some(cause) = parse_root_cause(complete_part(&text)) {
                return Next::Cause(cause);
            }
            if native_unproven {
                state.misses += 1;
                return Next::Continue;
            }
            let reason = format!(
                "the reply was cut off at the token limit ({} tokens, finish_reason \"length\") before it \
                 stated a root cause or a complete tool call",
                max_tokens.map_or("no".into(), |m| m.to_string())
            );
            let note = format!("the model's reply in ReAct turn {step} was cut off: {reason}");
            run.degrade(Degraded { turn: Some(step), reason, ..Degraded::at("react", None, None) });
            Next::End(note)
        }
    }
}

/// Runs `calls`, records them, and appends their results: `tool` messages for native
/// calls, one `user` message for calls written as text.
fn run_tools(run: &mut Session<'_>, step: usize, calls: &[ValidToolCall], as_text: bool, messages: &mut Vec<Message>) {
    let mut text_results = Vec::new();
    for call in calls {
        let args = Value::Object(call.arguments.clone());
        let (text, error) = match run.toolbox.call(&call.name, &args) {
            Ok(t) => (t, false),
            Err(e) => (format!("error: {e}"), true),
        };
        run.report.tool_calls.push(ToolCallRecord {
            step,
            name: call.name.clone(),
            arguments: args.clone(),
            output_chars: text.chars().count(),
            output_excerpt: text.chars().take(300).collect(),
            error,
        });
        if as_text {
            text_results.push(format!("Result of {} {args}:\n{text}", call.name));
        } else {
            messages.push(Message::tool(&call.id, text));
        }
    }
    if !text_results.is_empty() {
        messages.push(Message::user(text_results.join("\n\n")));
    }
}

/// Switches to the text protocol and restarts the conversation from the instruction.
fn switch_to_text(
    run: &mut Session<'_>,
    state: &mut Loop,
    messages: &mut Vec<Message>,
    tools: &[Tool],
    reason: String,
) {
    *messages = start(&state.base, Protocol::Text, tools);
    state.protocol = Protocol::Text;
    state.pinned = messages.len();
    state.nudge = None;
    tracing::info!(reason = %reason, "switching the ReAct loop to the text tool protocol");
    run.report.tool_protocol = Some(ToolProtocol {
        protocol: "native→text",
        switched_after_call: Some(run.ledger.totals().calls),
        reason: Some(reason),
    });
}
/// The ReAct conversation's start: system prompt, task (and first answer), instruction.
fn start(base: &[Message], protocol: Protocol, tools: &[Tool]) -> Vec<Message> {
    let (system, instruction) = match protocol {
        Protocol::Native => (SYSTEM_PROMPT.to_owned(), REACT_PROMPT.to_owned()),
        Protocol::Text => {
            (format!("{SYSTEM_PROMPT}\n\n{}", text_tools_prompt(tools)), format!("{REACT_PROMPT} {TEXT_CALL_REMINDER}"))
        }
    };
    let mut messages = vec![Message::system(system)];
    messages.extend(base.iter().cloned());
    messages.push(Message::user(instruction));
    messages
}

/// The tools and the text call format, for the system prompt of the text protocol: one
/// line per tool with its arguments (name, type, `required`), then the format.
pub fn text_tools_prompt(tools: &[Tool]) -> String {
    let mut s = String::from("You can call these tools to read the project:\n");
    for t in tools {
        s.push_str(&format!(
            "- {}({}): {}\n",
            t.name(),
            arguments_line(&t.function.parameters),
            t.function.description
        ));
    }
    s.push_str(
        "To call a tool, reply with exactly\n<tool_call>{\"name\": \"<tool name>\", \"arguments\": {<arguments as a \
         JSON object>}}</tool_call>\nand nothing after it; the result comes back in the next message. When you know \
         the root cause, answer with one line `ROOT CAUSE: <one or two sentences>` and no tool call.",
    );
    s
}

/// `file: string (required), method: string` from a JSON schema.
fn arguments_line(schema: &Value) -> String {
    let required: Vec<&str> =
        schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    let Some(props) = schema.get("properties").and_then(Value::as_object) else { return String::new() };
    let args = props.iter().map(|(name, p)| {
        let kind = p.get("type").and_then(Value::as_str).unwrap_or("any");
        let req = if required.contains(&name.as_str()) { " (required)" } else { "" };
        format!("{name}: {kind}{req}")
    });
    args.collect::<Vec<_>>().join(", ")
}
