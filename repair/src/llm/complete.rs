//! [`complete_n`]: `n` sampled choices even from servers that ignore `n`.
//!
//! llama.cpp's server, llama-cpp-python and Ollama answer a request for `n: 5` with one
//! choice (issue 9, fault 4). [`complete_n`] sends the request, and while fewer choices than
//! asked have come back, sends it again with `n` = the number still missing, each time only
//! when the [`Ledger`] budget allows; the choices are merged into one response. Every request
//! is recorded in the ledger with `choices_requested` and `choices_received`.

use super::{ChatClient, ChatRequest, ChatResponse, Ledger, Result, Usage};
use tracing::warn;

/// Make-up requests in a row that may bring no new choice before [`complete_n`] gives up.
const MAX_EMPTY_MAKEUPS: u32 = 2;

/// Sends `req` through `client` (cut at [`Ledger::deadline`]) and returns a response with up
/// to `req.n` choices (1 when unset), re-indexed `0..`, and the summed usage of every
/// request made.
///
/// When the server sends fewer choices than asked, further requests ask for the rest
/// (`n` = missing), each after [`Ledger::check`]; the make-up stops when the budget says no,
/// when a make-up request fails (the choices so far are kept; the error is logged), or when
/// two make-up requests in a row bring no new choice. Cost: one request when the server
/// honours `n`, at most `n` requests otherwise.
///
/// # Errors
/// Only from the first request: [`super::LlmError::BudgetExceeded`] before it, or the
/// client's error.
pub fn complete_n(client: &dyn ChatClient, req: &ChatRequest, ledger: &mut Ledger) -> Result<ChatResponse> {
    let wanted = req.n.unwrap_or(1).max(1) as usize;
    let mut merged = send(client, req, ledger)?;
    let mut empty = 0;
    while merged.choices.len() < wanted && empty < MAX_EMPTY_MAKEUPS {
        if ledger.check().is_err() {
            break;
        }
        let mut again = req.clone();
        again.n = Some(u32::try_from(wanted - merged.choices.len()).unwrap_or(u32::MAX));
        let more = match send(client, &again, ledger) {
            Ok(more) => more,
            Err(e) => {
                warn!(error = %e, "a request for the choices the server left out failed; going on with fewer");
                break;
            }
        };
        empty = if more.choices.is_empty() { empty + 1 } else { 0 };
        merge(&mut merged, more, wanted);
    }
    for (i, choice) in merged.choices.iter_mut().enumerate() {
        choice.index = u32::try_from(i).unwrap_or(u32::MAX);
    }
    Ok(merged)
}

/// One request, recorded in `ledger`.
fn send(client: &dyn ChatClient, req: &ChatRequest, ledger: &mut Ledger) -> Result<ChatResponse> {
    ledger.check()?;
    let resp = client.chat_within(req, ledger.deadline)?;
    ledger.record(req, &resp);
    Ok(resp)
}

/// Appends `more`'s choices (up to `wanted` in all) and usage to `merged`.
fn merge(merged: &mut ChatResponse, more: ChatResponse, wanted: usize) {
    let room = wanted.saturating_sub(merged.choices.len());
    merged.choices.extend(more.choices.into_iter().take(room));
    if let Some(u) = more.usage {
        let sum = merged.usage.unwrap_or_default();
        merged.usage = Some(Usage {
            prompt_tokens: sum.prompt_tokens + u.prompt_tokens,
            completion_tokens: sum.completion_tokens + u.completion_tokens,
        });
    }
    merged.transport.latency_ms += more.transport.latency_ms;
    merged.transport.retries += more.transport.retries;
}
