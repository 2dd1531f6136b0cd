//! Per-call accounting ([`CallRecord`]) and its running sum with budgets ([`Ledger`]).

use super::{ChatRequest, ChatResponse, LlmError, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Instant;

/// Price of a model, in USD per million tokens.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Price {
    /// USD per 1,000,000 prompt tokens.
    pub input_usd_per_mtok: f64,
    /// USD per 1,000,000 completion tokens.
    pub output_usd_per_mtok: f64,
}

impl Price {
    /// Cost of a call in USD.
    pub fn cost_usd(&self, prompt_tokens: u64, completion_tokens: u64) -> f64 {
        (prompt_tokens as f64 * self.input_usd_per_mtok + completion_tokens as f64 * self.output_usd_per_mtok) / 1e6
    }
}

/// Prices by model name, e.g. read from JSON
/// `{"gpt-4o-mini": {"input_usd_per_mtok": 0.15, "output_usd_per_mtok": 0.6}}`.
///
/// fixdex ships no prices (they change); a model without an entry has unknown cost.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PriceTable(pub BTreeMap<String, Price>);

impl PriceTable {
    /// The price of the model that answered (`response_model`, which may be a dated
    /// variant), else of the requested model; exact name matches only.
    pub fn lookup(&self, response_model: &str, request_model: &str) -> Option<Price> {
        self.0.get(response_model).or_else(|| self.0.get(request_model)).copied()
    }
}

/// Accounting of one successful chat call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    /// The model that answered (the requested one when the response names none).
    pub model: String,
    /// Prompt tokens as reported by the endpoint; 0 when it reported no usage.
    pub prompt_tokens: u64,
    /// Completion tokens as reported by the endpoint; 0 when it reported no usage.
    pub completion_tokens: u64,
    /// Whether the endpoint reported usage at all.
    pub usage_reported: bool,
    /// Wall time including retries, in milliseconds (0 for replayed responses).
    pub latency_ms: u64,
    /// Retries before success.
    pub retries: u32,
    /// Cost in USD; `None` when the model has no price or usage was not reported.
    pub cost_usd: Option<f64>,
    /// Choices asked for (the request's `n`, 1 when unset).
    #[serde(default = "one")]
    pub choices_requested: u32,
    /// Choices the server sent back; fewer than `choices_requested` means it ignored `n`
    /// (llama.cpp, Ollama), which [`super::complete_n`] makes up with further requests.
    #[serde(default = "one")]
    pub choices_received: u32,
}

fn one() -> u32 {
    1
}

impl CallRecord {
    /// The record of `resp`, an answer to `req`, priced with `prices`.
    pub fn new(req: &ChatRequest, resp: &ChatResponse, prices: &PriceTable) -> Self {
        let usage = resp.usage.unwrap_or_default();
        let price = prices.lookup(&resp.model, &req.model);
        CallRecord {
            model: if resp.model.is_empty() { req.model.clone() } else { resp.model.clone() },
            prompt_tokens: usage.prompt_tokens,
            completion_tokens: usage.completion_tokens,
            usage_reported: resp.usage.is_some(),
            latency_ms: resp.transport.latency_ms,
            retries: resp.transport.retries,
            cost_usd: price
                .filter(|_| resp.usage.is_some())
                .map(|p| p.cost_usd(usage.prompt_tokens, usage.completion_tokens)),
            choices_requested: req.n.unwrap_or(1),
            choices_received: u32::try_from(resp.choices.len()).unwrap_or(u32::MAX),
        }
    }
}

/// Limits on LLM use; `None` means unlimited.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Budget {
    /// Most successful calls.
    pub max_calls: Option<u64>,
    /// Most tokens, prompt plus completion, as reported by the endpoint.
    pub max_tokens: Option<u64>,
    /// Most cost, in millionths of a US dollar (`--max-usd` × 10⁶), from the prices given
    /// ([`PriceTable`]); calls of unknown price count nothing.
    #[serde(default)]
    pub max_micro_usd: Option<u64>,
}

/// Sums over a [`Ledger`]'s calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct LedgerTotals {
    /// Successful calls recorded.
    pub calls: u64,
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// Retries over all calls.
    pub retries: u64,
    /// Wall time over all calls, in milliseconds.
    pub latency_ms: u64,
    /// Cost of the priced calls, in USD: 0 without any call; `None` when there were calls
    /// and none was priced.
    pub cost_usd: Option<f64>,
    /// Calls whose cost is unknown (not included in `cost_usd`).
    pub unpriced_calls: u64,
    /// Calls that got fewer choices than they asked for (the server ignored `n`).
    pub short_choice_calls: u64,
}

impl LedgerTotals {
    /// Prompt plus completion tokens.
    pub fn tokens(&self) -> u64 {
        self.prompt_tokens + self.completion_tokens
    }
}

/// The calls of one run, their sums, and the [`Budget`] they must stay within.
///
/// Check with [`Ledger::check`] before each call and [`Ledger::record`] after it;
/// [`super::next_turn`] and [`super::complete_n`] do both. The token limit is checked
/// between calls, so it can be overshot by the last call's tokens; the `deadline` (the run's
/// wall-clock limit) cuts a call in flight ([`super::ChatClient::chat_within`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Ledger {
    /// The limits.
    pub budget: Budget,
    /// Prices used to cost calls.
    pub prices: PriceTable,
    /// Every recorded call, oldest first.
    pub calls: Vec<CallRecord>,
    /// When the run's wall-clock limit ends; calls are sent with it and cut at it.
    #[serde(skip)]
    pub deadline: Option<Instant>,
    /// The model name the server reported in its latest response that named one.
    #[serde(skip)]
    pub served_model: Option<String>,
}

impl Ledger {
    /// An empty ledger with `budget` and `prices`, and no deadline.
    pub fn new(budget: Budget, prices: PriceTable) -> Self {
        Ledger { budget, prices, calls: Vec::new(), deadline: None, served_model: None }
    }

    /// This ledger with calls cut off at `deadline` (see [`Ledger::deadline`]).
    pub fn with_deadline(mut self, deadline: Option<Instant>) -> Self {
        self.deadline = deadline;
        self
    }

    /// Whether another call is allowed.
    ///
    /// # Errors
    /// [`LlmError::BudgetExceeded`] when the calls, tokens or cost so far reach a limit.
    pub fn check(&self) -> Result<()> {
        let totals = self.totals();
        let over = |what, used, limit: Option<u64>| match limit {
            Some(limit) if used >= limit => Err(LlmError::BudgetExceeded { what, used, limit }),
            _ => Ok(()),
        };
        over("calls", totals.calls, self.budget.max_calls)?;
        over("tokens", totals.tokens(), self.budget.max_tokens)?;
        let micro_usd = (totals.cost_usd.unwrap_or(0.0) * 1e6).round() as u64;
        over("micro-USD", micro_usd, self.budget.max_micro_usd)
    }

    /// Records `resp`, the answer to `req`, and returns its record.
    pub fn record(&mut self, req: &ChatRequest, resp: &ChatResponse) -> &CallRecord {
        if !resp.model.is_empty() {
            self.served_model = Some(resp.model.clone());
        }
        self.calls.push(CallRecord::new(req, resp, &self.prices));
        self.calls.last().expect("just pushed")
    }

    /// A warning when some calls got fewer choices than they asked for (the server ignores
    /// `n`); `None` otherwise.
    pub fn choices_warning(&self) -> Option<String> {
        let short: Vec<_> = self.calls.iter().filter(|c| c.choices_received < c.choices_requested).collect();
        let first = short.first()?;
        Some(format!(
            "the server sent fewer choices than asked in {} call(s) (e.g. {} of n = {}): it ignores `n`, so the \
             missing candidates were asked for in further requests, as the budget allowed",
            short.len(),
            first.choices_received,
            first.choices_requested
        ))
    }

    /// Sums over all recorded calls. O(calls).
    pub fn totals(&self) -> LedgerTotals {
        let mut t = LedgerTotals::default();
        for c in &self.calls {
            t.calls += 1;
            t.prompt_tokens += c.prompt_tokens;
            t.completion_tokens += c.completion_tokens;
            t.retries += u64::from(c.retries);
            t.latency_ms += c.latency_ms;
            t.short_choice_calls += u64::from(c.choices_received < c.choices_requested);
            match c.cost_usd {
                Some(cost) => t.cost_usd = Some(t.cost_usd.unwrap_or(0.0) + cost),
                None => t.unpriced_calls += 1,
            }
        }
        if t.calls == 0 {
            t.cost_usd = Some(0.0);
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::Message;

    fn response(model: &str, usage: Option<(u64, u64)>) -> ChatResponse {
        let r = ChatResponse::from_message(model, Message::assistant("ok"), "stop");
        match usage {
            Some((p, c)) => r.with_usage(p, c),
            None => r,
        }
    }

    #[test]
    fn costs_sum_and_unknown_prices_stay_null() {
        let prices: PriceTable =
            serde_json::from_str(r#"{"m": {"input_usd_per_mtok": 2.0, "output_usd_per_mtok": 8.0}}"#).unwrap();
        let mut ledger = Ledger::new(Budget::default(), prices);
        let req = ChatRequest::new("m", vec![]);
        let rec = ledger.record(&req, &response("m", Some((1_000, 500))));
        assert!((rec.cost_usd.unwrap() - 0.006).abs() < 1e-12);
        assert!(
            ledger.record(&req, &response("other", Some((10, 10)))).cost_usd.is_some(),
            "priced by the requested model"
        );
        let unknown = ChatRequest::new("unknown", vec![]);
        assert_eq!(ledger.record(&unknown, &response("", Some((1, 1)))).cost_usd, None);
        assert_eq!(ledger.record(&req, &response("m", None)).cost_usd, None);
        let t = ledger.totals();
        assert_eq!((t.calls, t.prompt_tokens, t.completion_tokens, t.unpriced_calls), (4, 1_011, 511, 2));
        assert!((t.cost_usd.unwrap() - (0.006 + 0.0001)).abs() < 1e-12);
    }

    #[test]
    fn budgets_stop_calls_and_tokens() {
        let req = ChatRequest::new("m", vec![]);
        let mut calls =
            Ledger::new(Budget { max_calls: Some(1), max_tokens: None, max_micro_usd: None }, PriceTable::default());
        calls.check().unwrap();
        calls.record(&req, &response("m", None));
        let err = calls.check().unwrap_err();
        assert!(matches!(err, LlmError::BudgetExceeded { what: "calls", used: 1, limit: 1 }), "{err}");
        let mut tokens =
            Ledger::new(Budget { max_calls: None, max_tokens: Some(100), max_micro_usd: None }, PriceTable::default());
        tokens.record(&req, &response("m", Some((90, 20))));
        assert!(tokens.check().unwrap_err().to_string().contains("110 tokens used, the limit is 100"));
    }
}
