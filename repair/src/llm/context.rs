//! Keeping a conversation inside the model's context window.
//!
//! fixdex has no tokenizer of the server's model, so prompt sizes are **estimated**
//! ([`Estimator`]): characters divided by a characters-per-token ratio, 3 by default (code
//! and English run at 3-4 characters per token on common tokenizers; the low end errs on
//! the safe side), plus 4 tokens per message for the chat template. After each call whose
//! response reports `usage.prompt_tokens`, [`Estimator::observe`] replaces the ratio with
//! the measured one (clamped to 1.5..=6).
//!
//! [`fit`] shrinks a request's messages until the estimate fits
//! `context_tokens - reply_tokens` (the reply budget, `max_tokens`, stays reserved), in
//! this order, stopping as soon as it fits:
//! 1. **Cut old outputs**: every message after the `pinned` prefix except the last one is
//!    cut to [`OLD_OUTPUT_CHARS`] characters by [`cut_middle`].
//! 2. **Drop the oldest exchanges**: after the pinned prefix, an exchange is an assistant
//!    message and the tool / user messages that answer it; the oldest ones go first, the
//!    last exchange always stays.
//! 3. **Cut harder**: the longest message (pinned ones included, the system prompt not)
//!    is cut by [`cut_middle`] to half its length, down to [`MIN_MESSAGE_CHARS`].
//!
//! What is cut keeps its head (two thirds) and its tail (one third) around a marker
//! `[... N chars cut ...]`, so a stack trace keeps its exception line and its last frames.

use super::{ChatRequest, Message, Role};

/// Characters kept of each older message in step 1 of [`fit`].
pub const OLD_OUTPUT_CHARS: usize = 1_000;

/// Step 3 of [`fit`] never cuts a message below this many characters.
pub const MIN_MESSAGE_CHARS: usize = 400;

/// Tokens per message for the chat template's role markers.
const TOKENS_PER_MESSAGE: u64 = 4;

/// Tokens kept free besides the reply budget (estimation error of the template).
const SAFETY_TOKENS: u64 = 64;

/// The model's context window and the part reserved for the reply, in tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContextBudget {
    /// The whole window: prompt plus reply, in tokens (`--llm-context`).
    pub context_tokens: u64,
    /// Tokens reserved for the reply (the request's `max_tokens`).
    pub reply_tokens: u64,
}

impl ContextBudget {
    /// The prompt's share, in tokens: the window less the reply budget and a 64-token margin;
    /// at least a quarter of the window (a reply budget larger than the window is lowered
    /// by the caller, [`ContextBudget::reply_limit`]).
    pub fn prompt_tokens(&self) -> u64 {
        let rest = self.context_tokens.saturating_sub(self.reply_tokens).saturating_sub(SAFETY_TOKENS);
        rest.max(self.context_tokens / 4)
    }

    /// The reply budget that fits beside a prompt of `prompt_tokens`: `reply_tokens`, or
    /// less when prompt and reply would overflow the window (at least 64 tokens).
    pub fn reply_limit(&self, prompt_tokens: u64) -> u64 {
        let room = self.context_tokens.saturating_sub(prompt_tokens).saturating_sub(SAFETY_TOKENS);
        self.reply_tokens.min(room).max(SAFETY_TOKENS)
    }
}

/// Estimates prompt tokens from characters (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimator {
    /// Characters per token; 3 until a call reports its prompt tokens.
    pub chars_per_token: f64,
}

impl Default for Estimator {
    fn default() -> Self {
        Estimator { chars_per_token: 3.0 }
    }
}

impl Estimator {
    /// Estimated prompt tokens of `req`: its messages' characters and its tools' JSON
    /// schemas, divided by the ratio, plus 4 tokens per message.
    pub fn tokens(&self, req: &ChatRequest) -> u64 {
        let tools: usize =
            req.tools.iter().map(|t| t.function.parameters.to_string().len() + t.function.description.len()).sum();
        let chars: usize = req.messages.iter().map(message_chars).sum::<usize>() + tools;
        (chars as f64 / self.chars_per_token).ceil() as u64 + TOKENS_PER_MESSAGE * req.messages.len() as u64
    }

    /// Learns the ratio from a call: `req` was reported as `prompt_tokens` tokens.
    pub fn observe(&mut self, req: &ChatRequest, prompt_tokens: u64) {
        let overhead = TOKENS_PER_MESSAGE * req.messages.len() as u64;
        let Some(text_tokens) = prompt_tokens.checked_sub(overhead).filter(|&t| t > 0) else { return };
        let chars = (Estimator { chars_per_token: 1.0 }.tokens(req) - overhead) as f64;
        self.chars_per_token = (chars / text_tokens as f64).clamp(1.5, 6.0);
    }
}

fn message_chars(m: &Message) -> usize {
    let calls: usize = m.tool_calls.iter().map(|c| c.function.name.len() + c.function.arguments.len() + 16).sum();
    m.text().chars().count() + calls
}

/// What [`fit`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fitted {
    /// Exchanges dropped (step 2).
    pub dropped_exchanges: usize,
    /// Messages whose content was cut (steps 1 and 3).
    pub cut_messages: usize,
    /// The estimate after fitting, in tokens.
    pub tokens: u64,
    /// Whether the estimate is within the limit.
    pub fits: bool,
}

/// Shrinks `req.messages` until `estimator` puts them within `max_prompt_tokens` (see the
/// module docs for the steps); messages before `pinned` are never dropped. Returns what
/// was done; `fits` is false when even the last step could not get there. O(messages²)
/// in the worst case, on a few dozen messages.
pub fn fit(req: &mut ChatRequest, pinned: usize, max_prompt_tokens: u64, estimator: &Estimator) -> Fitted {
    let mut done = Fitted::default();
    let over = |req: &ChatRequest| estimator.tokens(req) > max_prompt_tokens;
    if over(req) {
        let last = req.messages.len().saturating_sub(1);
        for m in req.messages.iter_mut().take(last).skip(pinned) {
            done.cut_messages += usize::from(cut_message(m, OLD_OUTPUT_CHARS));
        }
    }
    while over(req) && drop_oldest_exchange(&mut req.messages, pinned) {
        done.dropped_exchanges += 1;
    }
    while over(req) && cut_longest(&mut req.messages) {
        done.cut_messages += 1;
    }
    done.tokens = estimator.tokens(req);
    done.fits = done.tokens <= max_prompt_tokens;
    done
}

/// Drops the first exchange after `pinned` unless it is the last one; `false` when none could go.
fn drop_oldest_exchange(messages: &mut Vec<Message>, pinned: usize) -> bool {
    let Some(start) = (pinned..messages.len()).find(|&i| messages[i].role == Role::Assistant) else { return false };
    let Some(end) = (start + 1..messages.len()).find(|&i| messages[i].role == Role::Assistant) else { return false };
    messages.drain(pinned..end);
    true
}

/// Halves the longest non-system message longer than [`MIN_MESSAGE_CHARS`]; `false` when none is.
fn cut_longest(messages: &mut [Message]) -> bool {
    let longest = messages
        .iter_mut()
        .filter(|m| m.role != Role::System)
        .max_by_key(|m| m.text().chars().count())
        .filter(|m| m.text().chars().count() > MIN_MESSAGE_CHARS);
    let Some(m) = longest else { return false };
    let half = (m.text().chars().count() / 2).max(MIN_MESSAGE_CHARS);
    cut_message(m, half)
}

fn cut_message(m: &mut Message, max_chars: usize) -> bool {
    let Some(text) = &m.content else { return false };
    if text.chars().count() <= max_chars {
        return false;
    }
    m.content = Some(cut_middle(text, max_chars));
    true
}

/// Characters reserved for the cut marker line.
const MARKER_CHARS: usize = 32;

/// `text` cut to at most `max_chars` characters (at least the marker): its head (two
/// thirds) and tail (one third) around the line `[... N chars cut ...]`; unchanged when it
/// is short enough.
pub fn cut_middle(text: &str, max_chars: usize) -> String {
    let total = text.chars().count();
    if total <= max_chars {
        return text.to_owned();
    }
    let keep = max_chars.saturating_sub(MARKER_CHARS);
    let head = keep * 2 / 3;
    let tail = keep - head;
    let cut = total - head - tail;
    let head_text: String = text.chars().take(head).collect();
    let tail_text: String = text.chars().skip(total - tail).collect();
    format!("{head_text}\n[... {cut} chars cut ...]\n{tail_text}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::{Message, ToolCall};

    fn exchange(n: usize, output: usize) -> Vec<Message> {
        let call = ToolCall::new(format!("c{n}"), "get_imports", "{}");
        let asked = Message { content: None, tool_calls: vec![call], ..Message::assistant("") };
        vec![asked, Message::tool(format!("c{n}"), "x".repeat(output))]
    }

    #[test]
    fn cut_middle_keeps_head_and_tail() {
        let text = format!("Exception: boom\n{}\nlast frame", "at f()\n".repeat(500));
        let cut = cut_middle(&text, 300);
        assert!(cut.starts_with("Exception: boom") && cut.ends_with("last frame"), "{cut}");
        assert!(cut.contains(&format!("[... {} chars cut ...]", text.chars().count() - 300 + 32)), "{cut}");
        assert!(cut.chars().count() <= 300, "{}", cut.chars().count());
        assert_eq!(cut_middle("short", 10), "short");
    }

    #[test]
    fn fit_cuts_then_drops_oldest_exchanges_and_keeps_the_pinned_prefix() {
        let mut messages = vec![Message::system("s"), Message::user("task")];
        for n in 0..6 {
            messages.extend(exchange(n, 3_000));
        }
        let mut req = ChatRequest::new("m", messages);
        let est = Estimator::default();
        let before = est.tokens(&req);
        let done = fit(&mut req, 2, 1_500, &est);
        assert!(done.fits && done.tokens <= 1_500 && done.tokens < before, "{done:?}");
        assert!(done.dropped_exchanges > 0, "{done:?}");
        assert_eq!(req.messages[1].text(), "task");
        assert_eq!(req.messages.last().unwrap().tool_call_id.as_deref(), Some("c5"), "the last exchange stays");
        assert_eq!(req.messages[2].role, Role::Assistant, "whole exchanges go");
    }

    #[test]
    fn estimator_learns_the_ratio_and_budget_reserves_the_reply() {
        let req = ChatRequest::new("m", vec![Message::user("x".repeat(4_000))]);
        let mut est = Estimator::default();
        assert_eq!(est.tokens(&req), 1_334 + 4);
        est.observe(&req, 1_004);
        assert_eq!(est.chars_per_token, 4.0);
        let budget = ContextBudget { context_tokens: 8_192, reply_tokens: 2_048 };
        assert_eq!(budget.prompt_tokens(), 8_192 - 2_048 - 64);
        assert_eq!(budget.reply_limit(7_000), 8_192 - 7_000 - 64);
    }
}
