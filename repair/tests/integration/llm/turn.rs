//! `next_turn`: validation, the text fallback and bounded re-asks, driven by scripts.

use repair::llm::{
    Action, Budget, ChatRequest, Ledger, LlmError, Message, PriceTable, Role, Script, ScriptedClient, Tool, ToolChoice,
    TurnOptions, next_turn,
};
use serde_json::json;

/// The request of the turn tests (and the fuzzed turns): two tools, one with a required
/// argument.
pub(crate) fn request() -> ChatRequest {
    let mut req = ChatRequest::new("m", vec![Message::user("Why does gcd fail?")]);
    let schema = json!({"type": "object", "properties": {"file": {"type": "string"}}, "required": ["file"]});
    req.tools.push(Tool::function("get_imports", "List the imports of a file", schema));
    req.tools.push(Tool::function("identify_class", "Name the class at a line", json!({"type": "object"})));
    req
}

fn run(scripts: Vec<Script>, opts: TurnOptions) -> (ScriptedClient, Result<repair::llm::Turn, LlmError>, Ledger) {
    let client = ScriptedClient::new(scripts);
    let mut ledger = Ledger::default();
    let turn = next_turn(&client, &request(), &opts, &mut ledger);
    (client, turn, ledger)
}

fn calls(turn: &repair::llm::Turn) -> Vec<(String, serde_json::Value)> {
    let Action::ToolCalls(calls) = &turn.action else { panic!("expected tool calls, got {:?}", turn.action) };
    calls.iter().map(|c| (c.name.clone(), serde_json::Value::Object(c.arguments.clone()))).collect()
}

#[test]
fn native_tool_call_passes() {
    let (_, turn, ledger) =
        run(vec![Script::tool_call("get_imports", &json!({"file": "A.java"}))], TurnOptions::default());
    let turn = turn.unwrap();
    assert_eq!(calls(&turn), vec![("get_imports".to_owned(), json!({"file": "A.java"}))]);
    assert_eq!((turn.reasks, turn.from_text), (0, false));
    assert_eq!(ledger.totals().calls, 1);
}

#[test]
fn tool_call_in_json_fence() {
    let text = "I need the imports.\n```json\n{\"name\": \"get_imports\", \"arguments\": {\"file\": \"B.py\"}}\n```";
    let (_, turn, _) = run(vec![Script::text(text)], TurnOptions::default());
    let turn = turn.unwrap();
    assert_eq!(calls(&turn), vec![("get_imports".to_owned(), json!({"file": "B.py"}))]);
    assert!(turn.from_text);
    // Issue 9: calls written as text stay text (answered with `user` messages).
    assert_eq!(turn.message.content.as_deref(), Some(text));
    assert!(turn.message.tool_calls.is_empty());
    let Action::ToolCalls(valid) = &turn.action else { panic!() };
    assert_eq!(valid[0].id, "call_1_0");
}

#[test]
fn tool_calls_in_hermes_tags() {
    let text = "<tool_call>\n{\"name\": \"get_imports\", \"arguments\": {\"file\": \"C.java\"}}\n</tool_call>\n\
                <tool_call>{\"name\": \"identify_class\", \"arguments\": {}}</tool_call>";
    let (_, turn, _) = run(vec![Script::text(text)], TurnOptions::default());
    let turn = turn.unwrap();
    assert_eq!(calls(&turn).len(), 2);
    assert_eq!(turn.message.content.as_deref(), Some(text));
}

#[test]
fn unknown_tool_is_reasked_with_the_tool_list() {
    let scripts = vec![
        Script::tool_call("read_file", &json!({"path": "x"})),
        Script::tool_call("get_imports", &json!({"file": "A"})),
    ];
    let (client, turn, ledger) = run(scripts, TurnOptions::default());
    let turn = turn.unwrap();
    assert_eq!(turn.reasks, 1);
    assert_eq!(ledger.totals().calls, 2);
    let reask = &client.requests()[1].messages;
    assert_eq!(reask.len(), 3, "question, bad assistant reply, tool error");
    assert_eq!(reask[1].tool_calls[0].function.name, "read_file");
    assert_eq!((reask[2].role, reask[2].tool_call_id.as_deref()), (Role::Tool, Some("call_0")));
    let error = reask[2].text();
    assert!(error.contains("no tool named \"read_file\"") && error.contains("get_imports, identify_class"), "{error}");
    assert_eq!(turn.reask_reasons.len(), 1);
    assert_eq!(turn.message.tool_calls[0].function.name, "get_imports", "the re-ask exchange is not in the turn");
}

#[test]
fn invalid_json_arguments_are_reasked() {
    let scripts = vec![
        Script::raw_tool_call("get_imports", "{\"file\": \"A.java\""),
        Script::tool_call("get_imports", &json!({"file": "A.java"})),
    ];
    let (client, turn, _) = run(scripts, TurnOptions::default());
    assert_eq!(turn.unwrap().reasks, 1);
    let error = client.requests()[1].messages[2].text().to_owned();
    assert!(error.contains("not valid JSON") && error.contains("with the keys file"), "{error}");
    let scripts =
        vec![Script::raw_tool_call("get_imports", "[1, 2]"), Script::tool_call("get_imports", &json!({"file": "A"}))];
    let (client, _, _) = run(scripts, TurnOptions::default());
    assert!(client.requests()[1].messages[2].text().contains("not an object (got an array)"));
}

#[test]
fn unknown_tool_in_text_is_reasked_as_user_message() {
    let scripts =
        vec![Script::text("<tool_call>{\"name\": \"grep\", \"arguments\": {}}</tool_call>"), Script::text("Final.")];
    let (client, turn, _) = run(scripts, TurnOptions::default());
    assert_eq!(turn.unwrap().action, Action::Final("Final.".into()));
    let reask = &client.requests()[1].messages;
    assert_eq!(reask[2].role, Role::User);
    assert!(reask[2].text().contains("no tool named \"grep\""), "{}", reask[2].text());
}

#[test]
fn missing_tool_call_is_final_only_when_allowed() {
    let (_, turn, _) = run(vec![Script::text("The cause is an off-by-one.")], TurnOptions::default());
    assert_eq!(turn.unwrap().action, Action::Final("The cause is an off-by-one.".into()));

    let must_call = TurnOptions { allow_final: false, ..TurnOptions::default() };
    let scripts = vec![Script::text("I think it is fine."), Script::tool_call("identify_class", &json!({}))];
    let (client, turn, _) = run(scripts, must_call);
    assert_eq!(turn.unwrap().reasks, 1);
    assert!(client.requests()[1].messages[2].text().contains("no tool call, and a tool call is required"));
}

#[test]
fn tool_choice_required_forbids_a_final_answer() {
    let client = ScriptedClient::new(vec![Script::text("text"), Script::tool_call("identify_class", &json!({}))]);
    let mut req = request();
    req.tool_choice = Some(ToolChoice::Required);
    let turn = next_turn(&client, &req, &TurnOptions::default(), &mut Ledger::default()).unwrap();
    assert_eq!(turn.reasks, 1);
}

/// Issue 9, fault 1: a reply cut off at the token limit is not re-asked (the same request
/// would be cut off again): it comes back as `Action::CutOff` for the caller to use.
#[test]
fn issue_9_a_cut_off_reply_is_not_reasked() {
    let scripts = vec![Script::truncated("The root cause is"), Script::text("Off-by-one.")];
    let (client, turn, _) = run(scripts, TurnOptions::default());
    let turn = turn.unwrap();
    assert_eq!((turn.reasks, client.requests().len()), (0, 1));
    assert_eq!(turn.action, Action::CutOff("The root cause is".into()));
}

/// Issue 9, fault 1: a cut-off reply keeps its complete tool calls: the text call before
/// the cut one, the native call whose arguments parse (the cut one is dropped).
#[test]
fn issue_9_a_cut_off_reply_keeps_its_complete_tool_calls() {
    let text = "<tool_call>{\"name\": \"get_imports\", \"arguments\": {\"file\": \"A\"}}</tool_call>\n\
                <tool_call>{\"name\": \"identify_class\", \"argu";
    let (client, turn, _) = run(vec![Script::truncated(text)], TurnOptions::default());
    let turn = turn.unwrap();
    assert_eq!(calls(&turn), vec![("get_imports".to_string(), json!({"file": "A"}))]);
    assert!(!turn.message.text().contains("identify_class"), "{:?}", turn.message);
    assert_eq!(client.requests().len(), 1);

    let mut native = Script::tool_call("get_imports", &json!({"file": "A"}));
    if let Script::Respond(r) = &mut native {
        let mut cut = r.choices[0].message.tool_calls[0].clone();
        cut.id = "call_cut".into();
        cut.function.arguments = "{\"fi".into();
        r.choices[0].message.tool_calls.push(cut);
        r.choices[0].finish_reason = Some("length".into());
    }
    let (client, turn, _) = run(vec![native], TurnOptions::default());
    let turn = turn.unwrap();
    assert_eq!(calls(&turn), vec![("get_imports".to_string(), json!({"file": "A"}))]);
    assert_eq!(turn.message.tool_calls.len(), 1);
    assert_eq!(client.requests().len(), 1);
}

/// Issue 9, fault 2: re-asks do not pile failed replies into the prompt: only the latest
/// failed reply is sent, its text cut to `REASK_REPLY_CHARS` around a marker.
#[test]
fn issue_9_reasks_send_only_the_latest_failed_reply_cut_short() {
    let long = format!("{}<tool_call>{{\"name\": \"nope\"}}</tool_call>", "thinking ".repeat(1_000));
    let scripts = vec![Script::text(long.clone()), Script::text(long), Script::text("Final.")];
    let (client, turn, _) = run(scripts, TurnOptions::default());
    assert_eq!(turn.unwrap().reasks, 2);
    let third = &client.requests()[2].messages;
    assert_eq!(third.len(), 3, "the question, one failed reply, one error: {third:#?}");
    assert!(third[1].text().chars().count() < 1_100, "{}", third[1].text().len());
    assert!(third[1].text().contains("chars cut ..."), "{}", third[1].text());
}

/// Issue 9, fault 3: with the text protocol the request goes without `tools` and
/// `tool_choice`, and calls written as text are still validated against the tools.
#[test]
fn issue_9_the_text_protocol_sends_no_tools_and_reads_text_calls() {
    let client = ScriptedClient::new(vec![Script::text(
        "<tool_call>{\"name\": \"get_imports\", \"arguments\": {\"file\": \"A\"}}</tool_call>",
    )]);
    let mut req = request();
    req.tool_choice = Some(ToolChoice::Auto);
    let opts = TurnOptions { text_protocol: true, ..TurnOptions::default() };
    let turn = next_turn(&client, &req, &opts, &mut Ledger::default()).unwrap();
    assert_eq!(calls(&turn), vec![("get_imports".to_string(), json!({"file": "A"}))]);
    assert!(turn.from_text);
    let sent = &client.requests()[0];
    assert!(sent.tools.is_empty() && sent.tool_choice.is_none(), "{sent:#?}");
}

#[test]
fn valid_sibling_of_a_bad_call_is_not_run() {
    let mut bad = Script::tool_call("get_imports", &json!({"file": "A"}));
    if let Script::Respond(r) = &mut bad {
        let mut second = r.choices[0].message.tool_calls[0].clone();
        second.id = String::new();
        second.function.name = "nope".into();
        r.choices[0].message.tool_calls.push(second);
    }
    let (client, turn, _) =
        run(vec![bad, Script::tool_call("get_imports", &json!({"file": "A"}))], TurnOptions::default());
    assert_eq!(turn.unwrap().reasks, 1);
    let reask = &client.requests()[1].messages;
    assert!(reask[2].text().starts_with("Not run"), "{}", reask[2].text());
    assert_eq!(reask[3].tool_call_id.as_deref(), Some("call_1_1"), "missing ids are filled in");
    assert!(reask[3].text().contains("no tool named \"nope\""));
}

#[test]
fn reask_bound_exceeded_is_an_error() {
    let bad = || Script::tool_call("nope", &json!({}));
    let (client, turn, ledger) = run(vec![bad(), bad(), bad(), bad()], TurnOptions::default());
    let err = turn.unwrap_err();
    assert!(matches!(err, LlmError::ReaskLimit { reasks: 2, .. }), "{err:?}");
    assert!(err.to_string().contains("no tool named \"nope\""), "{err}");
    assert_eq!((client.requests().len(), ledger.totals().calls), (3, 3));
}

#[test]
fn budget_stops_reasks() {
    let client = ScriptedClient::new(vec![Script::text("").with_usage(10, 1), Script::text("x")]);
    let mut ledger =
        Ledger::new(Budget { max_calls: Some(1), max_tokens: None, max_micro_usd: None }, PriceTable::default());
    let err = next_turn(&client, &request(), &TurnOptions::default(), &mut ledger).unwrap_err();
    assert!(matches!(err, LlmError::BudgetExceeded { what: "calls", .. }), "{err:?}");
    assert_eq!(ledger.totals().tokens(), 11);
}
