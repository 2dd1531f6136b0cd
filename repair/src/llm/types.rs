//! Request and response types of the OpenAI chat-completions wire format.
//!
//! Only the fields fixdex sends or reads are modelled; unknown response fields (for example
//! vLLM's `reasoning_content`) are ignored. `None` options and empty lists are omitted when
//! serializing, which is also what the canonical request of [`super::replay`] relies on.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// The author of a [`Message`], serialized in lowercase (`"system"`, `"user"`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions that frame the conversation.
    System,
    /// The user (for fixdex: the repair workflow's prompts and re-asks).
    User,
    /// The model.
    Assistant,
    /// The result of a tool call; carries `tool_call_id`.
    Tool,
}

fn assistant_role() -> Role {
    Role::Assistant
}

/// One chat message: `{"role", "content"?, "tool_calls"?, "tool_call_id"?, "name"?}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who wrote it. A response message without a role (some servers omit it) reads as
    /// [`Role::Assistant`].
    #[serde(default = "assistant_role")]
    pub role: Role,
    /// Text content; `None` (omitted / `null`) for an assistant message that only calls tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Tool calls made by an assistant message; empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty", deserialize_with = "null_as_default")]
    pub tool_calls: Vec<ToolCall>,
    /// On a [`Role::Tool`] message: the [`ToolCall::id`] this message answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// Optional participant or tool name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl Message {
    fn with(role: Role, content: impl Into<String>) -> Self {
        Message { role, content: Some(content.into()), tool_calls: Vec::new(), tool_call_id: None, name: None }
    }

    /// A system message with `content`.
    pub fn system(content: impl Into<String>) -> Self {
        Self::with(Role::System, content)
    }

    /// A user message with `content`.
    pub fn user(content: impl Into<String>) -> Self {
        Self::with(Role::User, content)
    }

    /// An assistant message with text `content` and no tool calls.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::with(Role::Assistant, content)
    }

    /// A tool message answering the call with id `tool_call_id`.
    pub fn tool(tool_call_id: impl Into<String>, content: impl Into<String>) -> Self {
        Message { tool_call_id: Some(tool_call_id.into()), ..Self::with(Role::Tool, content) }
    }

    /// The text content, or `""` when there is none.
    pub fn text(&self) -> &str {
        self.content.as_deref().unwrap_or("")
    }
}

/// A tool call in an assistant message:
/// `{"id", "type": "function", "function": {"name", "arguments"}}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The id that the answering [`Role::Tool`] message quotes. Some servers send none
    /// (read as `""`); [`super::next_turn`] fills such ids in.
    #[serde(default)]
    pub id: String,
    /// Always `"function"` today; read as `"function"` when missing.
    #[serde(rename = "type", default = "function_kind")]
    pub kind: String,
    /// The function to call and its arguments.
    pub function: FunctionCall,
}

fn function_kind() -> String {
    "function".to_owned()
}

impl ToolCall {
    /// A `"function"` tool call with the given id, name and raw `arguments` text.
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: impl Into<String>) -> Self {
        ToolCall {
            id: id.into(),
            kind: function_kind(),
            function: FunctionCall { name: name.into(), arguments: arguments.into() },
        }
    }
}

/// The function part of a [`ToolCall`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FunctionCall {
    /// Name of the tool the model wants to run.
    pub name: String,
    /// The arguments as a JSON **string**, exactly as the model wrote it (it may be invalid
    /// JSON). A server that sends a JSON object instead (Ollama's native style) is accepted
    /// and the object is kept as its compact JSON text.
    #[serde(deserialize_with = "string_or_json")]
    pub arguments: String,
}

/// A tool offered to the model: `{"type": "function", "function": {...}}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    /// Always `"function"`.
    #[serde(rename = "type", default = "function_kind")]
    pub kind: String,
    /// Name, description and parameter schema.
    pub function: FunctionDef,
}

impl Tool {
    /// A function tool named `name` whose arguments follow the JSON schema `parameters`.
    pub fn function(name: impl Into<String>, description: impl Into<String>, parameters: Value) -> Self {
        Tool {
            kind: function_kind(),
            function: FunctionDef { name: name.into(), description: description.into(), parameters },
        }
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.function.name
    }
}

/// The definition of a function tool.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FunctionDef {
    /// Name the model calls it by.
    pub name: String,
    /// What the tool does, for the model.
    #[serde(default)]
    pub description: String,
    /// JSON schema of the arguments object (`{"type": "object", "properties": ...}`).
    pub parameters: Value,
}

/// How the model may use tools: `"auto"`, `"none"`, `"required"`, or one named function
/// (`{"type": "function", "function": {"name": ...}}`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolChoice {
    /// The model decides between text and tool calls.
    Auto,
    /// No tool calls.
    None,
    /// At least one tool call.
    Required,
    /// A call to this function.
    Function(String),
}

#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum ToolChoiceWire {
    Mode(String),
    Named { r#type: String, function: NamedFunction },
}

#[derive(Serialize, Deserialize)]
struct NamedFunction {
    name: String,
}

impl Serialize for ToolChoice {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let wire = match self {
            ToolChoice::Auto => ToolChoiceWire::Mode("auto".into()),
            ToolChoice::None => ToolChoiceWire::Mode("none".into()),
            ToolChoice::Required => ToolChoiceWire::Mode("required".into()),
            ToolChoice::Function(name) => {
                ToolChoiceWire::Named { r#type: function_kind(), function: NamedFunction { name: name.clone() } }
            }
        };
        wire.serialize(s)
    }
}

impl<'de> Deserialize<'de> for ToolChoice {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match ToolChoiceWire::deserialize(d)? {
            ToolChoiceWire::Mode(m) => match m.as_str() {
                "auto" => Ok(ToolChoice::Auto),
                "none" => Ok(ToolChoice::None),
                "required" => Ok(ToolChoice::Required),
                other => Err(serde::de::Error::custom(format!("unknown tool_choice {other:?}"))),
            },
            ToolChoiceWire::Named { function, .. } => Ok(ToolChoice::Function(function.name)),
        }
    }
}

/// A chat-completions request body (`POST {base}/chat/completions`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// Model name as the endpoint knows it (e.g. `gpt-4o-mini`, `Qwen/Qwen2.5-Coder-7B-Instruct`).
    pub model: String,
    /// The conversation so far, oldest first.
    pub messages: Vec<Message>,
    /// Tools the model may call; omitted when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Tool>,
    /// Tool policy; `None` with tools is sent as `"auto"` by [`super::OpenAiClient`] (see
    /// [`ChatRequest::for_wire`]): some servers (llama-cpp-python's function-calling chat
    /// formats) ignore tools unless `tool_choice` is given. Without tools it is omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// Sampling temperature (0 = greedy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Number of choices to sample.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n: Option<u32>,
    /// Completion length limit, in tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// Sampling seed, for endpoints that honour it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

impl ChatRequest {
    /// A request for `model` with `messages` and every option unset.
    pub fn new(model: impl Into<String>, messages: Vec<Message>) -> Self {
        ChatRequest {
            model: model.into(),
            messages,
            tools: Vec::new(),
            tool_choice: None,
            temperature: None,
            n: None,
            max_tokens: None,
            seed: None,
        }
    }

    /// The request as sent: with tools and no `tool_choice`, `tool_choice` is
    /// [`ToolChoice::Auto`] (the OpenAI default, made explicit for servers that ignore tools
    /// without it, issue 9). The canonical form ([`super::canonical`]) treats both alike.
    pub fn for_wire(&self) -> ChatRequest {
        let mut req = self.clone();
        if !req.tools.is_empty() && req.tool_choice.is_none() {
            req.tool_choice = Some(ToolChoice::Auto);
        }
        req
    }
}

/// Token counts reported by the endpoint.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens in the prompt (all request messages and tool definitions).
    #[serde(default)]
    pub prompt_tokens: u64,
    /// Tokens generated, over all choices.
    #[serde(default)]
    pub completion_tokens: u64,
}

/// One sampled completion.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    /// Position among the `n` choices.
    #[serde(default)]
    pub index: u32,
    /// The assistant message.
    pub message: Message,
    /// Why generation stopped: `"stop"`, `"tool_calls"`, `"length"` (cut off at
    /// `max_tokens`), `"content_filter"`, or `None` when the server does not say.
    #[serde(default)]
    pub finish_reason: Option<String>,
}

/// Facts about how a response was obtained. Not part of the wire format: never serialized,
/// and zero for responses that were read back from a recording.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Transport {
    /// Wall time of the whole call including retries and back-off sleeps, in milliseconds.
    pub latency_ms: u64,
    /// Attempts beyond the first (0 = first try succeeded).
    pub retries: u32,
}

/// A chat-completions response body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    /// Server-assigned id, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The model that answered, as the server names it (may be a dated variant of the
    /// requested name); `""` when missing.
    #[serde(default)]
    pub model: String,
    /// The sampled completions; at least one for a well-formed response.
    pub choices: Vec<Choice>,
    /// Token counts, when the server reports them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Latency and retries, filled in by the client (see [`Transport`]).
    #[serde(skip)]
    pub transport: Transport,
}

impl ChatResponse {
    /// A one-choice response carrying `message` with `finish_reason`, no usage.
    pub fn from_message(model: impl Into<String>, message: Message, finish_reason: &str) -> Self {
        ChatResponse {
            id: None,
            model: model.into(),
            choices: vec![Choice { index: 0, message, finish_reason: Some(finish_reason.to_owned()) }],
            usage: None,
            transport: Transport::default(),
        }
    }

    /// This response with `usage` set to the given token counts.
    pub fn with_usage(mut self, prompt_tokens: u64, completion_tokens: u64) -> Self {
        self.usage = Some(Usage { prompt_tokens, completion_tokens });
        self
    }
}

fn null_as_default<'de, D: Deserializer<'de>, T: Default + Deserialize<'de>>(d: D) -> Result<T, D::Error> {
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

fn string_or_json<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    match Value::deserialize(d)? {
        Value::String(s) => Ok(s),
        Value::Null => Ok(String::new()),
        other => Ok(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_choice_round_trips() {
        for (choice, wire) in [
            (ToolChoice::Auto, json!("auto")),
            (ToolChoice::Required, json!("required")),
            (ToolChoice::Function("f".into()), json!({"type": "function", "function": {"name": "f"}})),
        ] {
            assert_eq!(serde_json::to_value(&choice).unwrap(), wire);
            assert_eq!(serde_json::from_value::<ToolChoice>(wire).unwrap(), choice);
        }
    }

    #[test]
    fn response_tolerates_server_variants() {
        let body = json!({"choices": [{"message": {"content": null, "tool_calls": [
            {"function": {"name": "f", "arguments": {"a": 1}}}]}, "finish_reason": "tool_calls"}],
            "reasoning_content": "ignored"});
        let resp: ChatResponse = serde_json::from_value(body).unwrap();
        let call = &resp.choices[0].message.tool_calls[0];
        assert_eq!((call.kind.as_str(), call.function.arguments.as_str()), ("function", r#"{"a":1}"#));
        assert_eq!(resp.choices[0].message.role, Role::Assistant);
    }

    #[test]
    fn request_omits_unset_fields() {
        let req = ChatRequest::new("m", vec![Message::user("hi")]);
        assert_eq!(
            serde_json::to_value(&req).unwrap(),
            json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
        );
    }
}
