//! [`next_turn`]: one model turn, turned into validated tool calls or a final answer.
//!
//! A reply is read as follows (choice 0 only; sample more choices with
//! [`ChatClient::chat`] directly):
//! 1. Native `tool_calls` are validated: the name must be one of the request's tools and
//!    `arguments` must parse as a JSON object (an empty string reads as `{}`; a JSON string
//!    holding an object is unwrapped). Missing ids are filled in.
//! 2. Without native calls, tool calls written in the text are parsed
//!    ([`super::text`]) and validated the same way.
//! 3. Without any tool call, the reply is a **final answer** only when all hold: the
//!    caller allows one ([`TurnOptions::allow_final`]), `tool_choice` is not `required` or a
//!    named function, and the text is not empty. A request without tools always allows a
//!    final answer.
//!
//! A reply **cut off** at the token limit (`finish_reason: "length"`) is never re-asked (the
//! same request would be cut off again, and the history would grow by a whole reply): its
//! complete tool calls are taken (native calls whose arguments do not parse are dropped as
//! cut; text calls up to the last complete one, [`super::text::complete_calls_text`]), and
//! without any it is [`Action::CutOff`], for the caller to use what is complete
//! ([`super::text::complete_part`]) or to go on without it.
//!
//! Anything else is re-asked: the bad reply (its text cut to [`REASK_REPLY_CHARS`]) is
//! appended to the conversation followed by an error that says exactly what was wrong (per
//! call, as `tool` messages answering native calls; as a `user` message otherwise), at most
//! [`TurnOptions::max_reasks`] times. Only the latest re-ask exchange is sent: a second
//! re-ask replaces the first, so the prompt does not grow with failed replies.
//!
//! With [`TurnOptions::text_protocol`] the request goes without `tools` and `tool_choice`
//! (for servers that ignore or refuse them) while calls written as text are still read and
//! validated against the request's tools.

use super::context::cut_middle;
use super::text::{TextCall, TextCalls, call_shape, complete_calls_text, parse_text_calls};
use super::{ChatClient, ChatRequest, Choice, Ledger, LlmError, Message, Result, Tool, ToolCall, ToolChoice, excerpt};
use serde::Serialize;
use serde_json::{Map, Value};
use tracing::debug;

/// How [`next_turn`] treats replies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TurnOptions {
    /// Most re-asks after a bad reply (so at most `max_reasks + 1` calls). Default 2.
    pub max_reasks: u32,
    /// Whether a reply without tool calls may end the turn as a final answer. Default true.
    pub allow_final: bool,
    /// Send the request without `tools` and `tool_choice`; calls are read from the text
    /// (the tools must be described in the prompt). Default false.
    pub text_protocol: bool,
}

impl Default for TurnOptions {
    fn default() -> Self {
        TurnOptions { max_reasks: 2, allow_final: true, text_protocol: false }
    }
}

/// Characters of a bad reply's text kept in a re-ask (head and tail, [`cut_middle`]).
pub const REASK_REPLY_CHARS: usize = 1_000;

/// A tool call that names a known tool and has a JSON-object argument.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ValidToolCall {
    /// The id the tool result must quote ([`Message::tool`]).
    pub id: String,
    /// The tool's name, one of the request's tools.
    pub name: String,
    /// The parsed arguments (not checked against the tool's schema).
    pub arguments: Map<String, Value>,
}

/// What the model decided.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Action {
    /// Run these tools (one or more, in order) and send their results back.
    ToolCalls(Vec<ValidToolCall>),
    /// The model's final text answer.
    Final(String),
    /// The reply was cut off at the token limit and holds no complete tool call: its text,
    /// of which only [`super::text::complete_part`] is whole. Never re-asked.
    CutOff(String),
}

/// The outcome of [`next_turn`].
#[derive(Clone, Debug, PartialEq)]
pub struct Turn {
    /// Tool calls to run or the final answer.
    pub action: Action,
    /// The assistant message to append to the conversation: as received, except that
    /// missing call ids are filled in, native calls dropped as cut off are removed, and a
    /// cut-off reply's text ends after its last complete text call. Calls parsed from text
    /// stay text (answer them with `user` messages: plain chat formats drop `tool` ones).
    /// Re-ask exchanges are not included.
    pub message: Message,
    /// Re-asks it took (0 = the first reply was usable).
    pub reasks: u32,
    /// What was wrong with each re-asked reply, as told to the model.
    pub reask_reasons: Vec<String>,
    /// Whether the tool calls were parsed from text rather than native.
    pub from_text: bool,
    /// The accepted reply's `finish_reason`.
    pub finish_reason: Option<String>,
}

/// Asks `client` for the next turn of `req` and validates the reply, re-asking on bad
/// output (see the module docs). Each call is checked against and recorded in `ledger`.
///
/// # Errors
/// [`LlmError::BudgetExceeded`] before a call the budget forbids; the client's errors;
/// [`LlmError::MalformedResponse`] for a response without choices;
/// [`LlmError::ReaskLimit`] when the reply is still unusable after `max_reasks` re-asks.
pub fn next_turn<C: ChatClient + ?Sized>(
    client: &C,
    req: &ChatRequest,
    opts: &TurnOptions,
    ledger: &mut Ledger,
) -> Result<Turn> {
    let final_allowed = req.tools.is_empty()
        || (opts.allow_final && !matches!(req.tool_choice, Some(ToolChoice::Required | ToolChoice::Function(_))));
    let tools = req.tools.clone();
    let mut req = req.clone();
    if opts.text_protocol {
        req.tools.clear();
        req.tool_choice = None;
    }
    let asked = req.messages.len();
    let mut reasons = Vec::new();
    let mut native_calls_seen = false;
    loop {
        ledger.check()?;
        let response = client.chat_within(&req, ledger.deadline)?;
        ledger.record(&req, &response);
        let choice = response.choices.into_iter().next().ok_or_else(|| LlmError::MalformedResponse {
            url: client.describe().endpoint.unwrap_or_default(),
            reason: "no choices".to_owned(),
            body: String::new(),
        })?;
        native_calls_seen |= !choice.message.tool_calls.is_empty();
        match assess(&choice, &tools, asked, final_allowed, opts.text_protocol) {
            Ok((action, message, from_text)) => {
                let reasks = reasons.len() as u32;
                let finish_reason = choice.finish_reason;
                return Ok(Turn { action, message, reasks, reask_reasons: reasons, from_text, finish_reason });
            }
            Err(problem) if reasons.len() as u32 >= opts.max_reasks => {
                return Err(LlmError::ReaskLimit {
                    reasks: reasons.len() as u32,
                    problem: problem.reason(),
                    native_calls_seen,
                });
            }
            Err(problem) => {
                debug!(reask = reasons.len() + 1, problem = problem.reason(), "re-asking the model");
                reasons.push(problem.reason());
                req.messages.truncate(asked);
                req.messages.extend(problem.into_messages());
            }
        }
    }
}

/// A reply that must be re-asked, with the messages that tell the model why.
enum Problem {
    /// Native calls, at least one bad: the error for each call (`None` = fine).
    Native { message: Message, errors: Vec<Option<String>> },
    /// Anything else: one error for the whole reply.
    Text { message: Message, error: String },
}

/// Sent back for a good call whose sibling was bad.
const NOT_RUN: &str = "Not run: another tool call in this reply was invalid. Send all tool calls again, corrected.";

impl Problem {
    fn reason(&self) -> String {
        match self {
            Problem::Native { errors, .. } => errors.iter().flatten().cloned().collect::<Vec<_>>().join(" "),
            Problem::Text { error, .. } => error.clone(),
        }
    }

    fn into_messages(self) -> Vec<Message> {
        match self {
            Problem::Native { message, errors } => {
                let answers = message.tool_calls.iter().zip(&errors).map(|(call, error)| {
                    Message::tool(&call.id, error.as_ref().map_or(NOT_RUN.to_owned(), |e| format!("Error: {e}")))
                });
                let answers: Vec<_> = answers.collect();
                std::iter::once(message).chain(answers).collect()
            }
            Problem::Text { message, error } => vec![message, Message::user(format!("Error: {error}"))],
        }
    }
}

/// `message` with its text cut to [`REASK_REPLY_CHARS`], for a re-ask.
fn shortened(mut message: Message) -> Message {
    if let Some(text) = &message.content {
        message.content = Some(cut_middle(text, REASK_REPLY_CHARS));
    }
    message
}

type Accepted = (Action, Message, bool);

/// An accepted reply, or the problem to re-ask about (boxed: it holds a whole message).
type Assessed = std::result::Result<Accepted, Box<Problem>>;

fn assess(choice: &Choice, tools: &[Tool], id_base: usize, final_allowed: bool, text_only: bool) -> Assessed {
    let cut_off = choice.finish_reason.as_deref() == Some("length");
    let mut message = choice.message.clone();
    for (i, call) in message.tool_calls.iter_mut().enumerate().filter(|(_, c)| c.id.is_empty()) {
        call.id = format!("call_{id_base}_{i}");
    }
    if !message.tool_calls.is_empty() {
        return assess_native(message, tools, cut_off);
    }
    if !tools.is_empty() {
        let text = if cut_off { complete_calls_text(message.text()) } else { message.text() }.to_owned();
        match parse_text_calls(&text) {
            TextCalls::Calls { calls, .. } => {
                if cut_off {
                    message.content = Some(text.trim_end().to_owned());
                }
                return assess_text(message, &calls, tools, id_base, text_only);
            }
            TextCalls::Broken(_) if cut_off => {}
            TextCalls::Broken(why) => {
                return Err(text_problem(message, format!("{why}. {}", how_to_call(tools, text_only))));
            }
            TextCalls::None => {}
        }
    }
    if cut_off {
        let text = message.text().to_owned();
        return Ok((Action::CutOff(text), message, false));
    }
    if message.text().trim().is_empty() {
        return Err(text_problem(message, format!("your reply was empty. {}", how_to_call(tools, text_only))));
    }
    if !final_allowed {
        let error =
            format!("your reply has no tool call, and a tool call is required now. {}", how_to_call(tools, text_only));
        return Err(text_problem(message, error));
    }
    let text = message.text().to_owned();
    Ok((Action::Final(text), message, false))
}

fn assess_native(mut message: Message, tools: &[Tool], cut_off: bool) -> Assessed {
    let check = |c: &ToolCall| validate(&c.id, &c.function.name, &c.function.arguments, tools);
    if cut_off {
        // Calls whose arguments were cut are dropped; the complete ones run.
        message.tool_calls.retain(|c| check(c).is_ok());
        if message.tool_calls.is_empty() {
            let text = message.text().to_owned();
            return Ok((Action::CutOff(text), message, false));
        }
    }
    let checked: Vec<_> = message.tool_calls.iter().map(check).collect();
    if checked.iter().all(|c| c.is_ok()) {
        let calls = checked.into_iter().map(|c| c.expect("all ok")).collect();
        return Ok((Action::ToolCalls(calls), message, false));
    }
    let errors = checked.into_iter().map(|c| c.err()).collect();
    Err(Box::new(Problem::Native { message: shortened(message), errors }))
}

fn assess_text(message: Message, calls: &[TextCall], tools: &[Tool], id_base: usize, text_only: bool) -> Assessed {
    let ids = (0..calls.len()).map(|i| format!("call_{id_base}_{i}"));
    let checked: std::result::Result<Vec<_>, String> =
        calls.iter().zip(ids).map(|(c, id)| validate(&id, &c.name, &c.arguments, tools)).collect();
    match checked {
        Ok(valid) => Ok((Action::ToolCalls(valid), message, true)),
        Err(error) => Err(text_problem(message, format!("{error} {}", how_to_call(tools, text_only)))),
    }
}

fn text_problem(mut message: Message, error: String) -> Box<Problem> {
    message.content.get_or_insert_with(String::new);
    Box::new(Problem::Text { message: shortened(message), error })
}

/// Validates one call; the error tells the model what was wrong and how to fix it.
fn validate(id: &str, name: &str, arguments: &str, tools: &[Tool]) -> std::result::Result<ValidToolCall, String> {
    let Some(tool) = tools.iter().find(|t| t.name() == name) else {
        return Err(format!("there is no tool named {name:?}. Available tools: {}.", tool_names(tools)));
    };
    let parsed =
        if arguments.trim().is_empty() { Ok(Value::Object(Map::new())) } else { serde_json::from_str(arguments) };
    let unwrapped = match parsed {
        Ok(Value::String(inner)) => serde_json::from_str(&inner).unwrap_or(Value::String(inner)),
        other => other.map_err(|e| bad_arguments(tool, arguments, &format!("are not valid JSON ({e})")))?,
    };
    match unwrapped {
        Value::Object(arguments) => Ok(ValidToolCall { id: id.to_owned(), name: name.to_owned(), arguments }),
        other => Err(bad_arguments(
            tool,
            arguments,
            &format!("are JSON but not an object (got {})", crate::tools::schema::json_type(&other)),
        )),
    }
}

fn bad_arguments(tool: &Tool, arguments: &str, what: &str) -> String {
    let required = tool.function.parameters.get("required").and_then(Value::as_array);
    let keys: Vec<&str> = required.into_iter().flatten().filter_map(Value::as_str).collect();
    let hint = if keys.is_empty() { String::new() } else { format!(" with the keys {}", keys.join(", ")) };
    format!(
        "the arguments of your call to {:?} {what}: {}. Send the call again with \"arguments\" as one JSON object{hint}.",
        tool.name(),
        excerpt(arguments, 200)
    )
}

fn how_to_call(tools: &[Tool], text_only: bool) -> String {
    if tools.is_empty() {
        return "Reply again with your answer.".to_owned();
    }
    if text_only {
        return format!(
            "Call one of the tools ({}) by writing {OPEN}{}{CLOSE}.",
            tool_names(tools),
            call_shape(),
            OPEN = "<tool_call>",
            CLOSE = "</tool_call>"
        );
    }
    format!(
        "Call one of the tools ({}) through the tool-calling interface, or write {OPEN}{}{CLOSE}.",
        tool_names(tools),
        call_shape(),
        OPEN = "<tool_call>",
        CLOSE = "</tool_call>"
    )
}

fn tool_names(tools: &[Tool]) -> String {
    tools.iter().map(Tool::name).collect::<Vec<_>>().join(", ")
}
