//! [`label_rows`]: the rows not in the cache labelled by worker threads, under the request
//! rate, the budgets and the wall-clock limit (`Gate`), each label appended to the cache
//! as soon as it exists.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::llm::{ChatClient, ChatRequest, ChatResponse, LlmError, excerpt};

use super::prompt::{self, MAX_ROOT_CAUSE_CHARS, PROMPT_VERSION, clean_answer};
use super::{Cache, CacheEntry, Failure, LabelConfig, LabelSummary, Labeller, Progress, Row};

/// Model calls that may fail one after another (errors, not unusable answers) before the
/// run stops asking: a server that is down fails every row fast, and the rest are reported
/// as not asked.
pub const MAX_ERRORS_IN_A_ROW: u32 = 20;

/// A row's outcome: its new cache entry, or why it has none.
type Outcome = Result<CacheEntry, String>;

/// Labels every row of `rows` whose key is not in `cache` (rows with equal keys are asked
/// once) with `labeller`, appends each new label to `cache`, and writes the labels (new and
/// cached) into `rows`; failed rows are left as they were (see the module docs of
/// [`super`]).
pub fn label_rows(
    rows: &mut [Row],
    labeller: Labeller<'_>,
    cache: &Cache,
    cfg: &LabelConfig,
    progress: &dyn Progress,
) -> LabelSummary {
    let started = Instant::now();
    let sent_before = labeller.requests_sent();
    let keys: Vec<String> = rows.iter().map(|r| r.key(labeller.name(), PROMPT_VERSION)).collect();
    let tasks = pending(&keys, cache);
    progress.start(tasks.len() as u64);
    let work = Work::new(rows, &keys, &tasks, labeller, cache, cfg, progress);
    let threads = cfg.concurrency.clamp(1, tasks.len().max(1));
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| work.worker());
        }
    });
    progress.finish();
    let (outcomes, gate) = (work.done.into_inner().expect("not poisoned"), work.gate);
    let mut summary = apply(rows, &keys, cache, &outcomes, &labeller);
    gate.fill(&mut summary);
    summary.requests = labeller.requests_sent().zip(sent_before).map(|(after, before)| after.saturating_sub(before));
    summary.cache_torn_line = cache.had_torn_line();
    summary.wall_s = started.elapsed().as_secs_f64();
    summary
}

/// The first row of each distinct key that is not in the cache, in row order.
fn pending(keys: &[String], cache: &Cache) -> Vec<usize> {
    let mut seen = std::collections::HashSet::new();
    (0..keys.len()).filter(|&i| cache.get(&keys[i]).is_none() && seen.insert(keys[i].as_str())).collect()
}

/// Writes the labels into `rows` and counts them.
fn apply(
    rows: &mut [Row],
    keys: &[String],
    cache: &Cache,
    outcomes: &HashMap<String, Outcome>,
    labeller: &Labeller<'_>,
) -> LabelSummary {
    let mut s = LabelSummary {
        source: labeller.source(),
        prompt_version: PROMPT_VERSION,
        rows: rows.len(),
        ..Default::default()
    };
    for (row, key) in rows.iter_mut().zip(keys) {
        match (cache.get(key), outcomes.get(key)) {
            (Some(e), _) => {
                row.set_label(&e.root_cause, &e.source);
                s.from_cache += 1;
            }
            (None, Some(Ok(e))) => {
                row.set_label(&e.root_cause, &e.source);
                s.labelled += 1;
            }
            (None, Some(Err(reason))) => {
                s.failures.push(Failure { id: row.id(), line: row.line, reason: reason.clone() });
            }
            (None, None) => unreachable!("every pending key gets an outcome"),
        }
    }
    s.failed = s.failures.len();
    s
}

/// What the worker threads share.
struct Work<'a> {
    rows: &'a [Row],
    keys: &'a [String],
    tasks: &'a [usize],
    labeller: Labeller<'a>,
    cache: &'a Cache,
    cfg: &'a LabelConfig,
    progress: &'a dyn Progress,
    next: AtomicUsize,
    gate: Gate,
    done: Mutex<HashMap<String, Outcome>>,
}

impl<'a> Work<'a> {
    fn new(
        rows: &'a [Row],
        keys: &'a [String],
        tasks: &'a [usize],
        labeller: Labeller<'a>,
        cache: &'a Cache,
        cfg: &'a LabelConfig,
        progress: &'a dyn Progress,
    ) -> Self {
        let (next, gate, done) = (AtomicUsize::new(0), Gate::new(cfg), Mutex::new(HashMap::new()));
        Work { rows, keys, tasks, labeller, cache, cfg, progress, next, gate, done }
    }

    /// Takes rows until none is left.
    fn worker(&self) {
        while let Some(&i) = self.tasks.get(self.next.fetch_add(1, Ordering::Relaxed)) {
            let outcome = self.label_one(&self.rows[i], &self.keys[i]);
            if let Ok(entry) = &outcome
                && let Err(e) = self.cache.append(entry)
            {
                self.gate.stop(format!("cannot write the cache: {e}"));
            }
            if let Entry::Vacant(v) = self.done.lock().expect("not poisoned").entry(self.keys[i].clone()) {
                v.insert(outcome);
            }
            self.progress.advance();
        }
    }

    fn label_one(&self, row: &Row, key: &str) -> Outcome {
        let (root_cause, prompt_tokens, completion_tokens, cost_usd) = match self.labeller {
            Labeller::Mechanical => (mechanical(row)?, 0, 0, None),
            Labeller::Model { client, model } => self.ask(client, model, row)?,
        };
        let source = self.labeller.source();
        Ok(CacheEntry {
            key: key.to_owned(),
            id: row.id(),
            root_cause,
            source,
            prompt_tokens,
            completion_tokens,
            cost_usd,
        })
    }

    /// One model call for `row`: `(root cause, prompt tokens, completion tokens, cost)`.
    fn ask(&self, client: &dyn ChatClient, model: &str, row: &Row) -> Result<(String, u64, u64, Option<f64>), String> {
        self.gate.acquire()?;
        let req = prompt::request(row, model, &self.cfg.request);
        let resp = match client.chat_within(&req, self.gate.deadline) {
            Ok(resp) => resp,
            Err(e) => {
                self.gate.failed(&e);
                return Err(format!("model call failed: {e}"));
            }
        };
        let (p, c, cost) = self.gate.record(&req, &resp);
        let text = resp.choices.first().map_or("", |choice| choice.message.text());
        let cause = clean_answer(text).ok_or_else(|| format!("unusable answer: {:?}", excerpt(text, 120)))?;
        Ok((cause, p, c, cost))
    }
}

/// `actions::root_cause` of a Java or Python row, cut to [`MAX_ROOT_CAUSE_CHARS`].
fn mechanical(row: &Row) -> Result<String, String> {
    let lang: crate::Language = row
        .text("language")
        .parse()
        .map_err(|_| format!("mechanical labelling needs language java or python, not {:?}", row.text("language")))?;
    let cause = actions::root_cause(row.text("buggy_code"), row.text("fixed_code"), lang, row.method().as_deref());
    Ok(prompt::cut(&cause, MAX_ROOT_CAUSE_CHARS))
}

/// Admits model calls: the request rate, the budgets, the wall-clock limit, the run's stop;
/// and sums what the calls used.
struct Gate {
    state: Mutex<GateState>,
    /// Signalled when a call ends (the first call goes alone, see [`Gate::acquire`]).
    ended: Condvar,
    budget: crate::llm::Budget,
    prices: crate::llm::PriceTable,
    interval: Option<Duration>,
    deadline: Option<Instant>,
}

#[derive(Default)]
struct GateState {
    /// Calls admitted and not yet answered or failed.
    in_flight: u64,
    calls: u64,
    prompt_tokens: u64,
    completion_tokens: u64,
    cost_usd: Option<f64>,
    errors_in_a_row: u32,
    /// Failed calls whose reply arrived (an error status, a malformed body).
    answered_badly: u64,
    /// Calls that ended, answered or failed.
    ended: u64,
    /// When the next request may start (`--rpm`).
    next_slot: Option<Instant>,
    stopped: Option<String>,
}

impl Gate {
    fn new(cfg: &LabelConfig) -> Self {
        Gate {
            state: Mutex::new(GateState::default()),
            ended: Condvar::new(),
            budget: cfg.budget,
            prices: cfg.prices.clone(),
            interval: cfg.rpm.filter(|&r| r > 0).map(|r| Duration::from_secs(60) / r),
            deadline: cfg.wall.map(|w| Instant::now() + w),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, GateState> {
        self.state.lock().expect("not poisoned")
    }

    /// Waits for the request's turn; `Err("not asked: <why>")` once the run has stopped.
    /// The run's first call goes alone: the others wait for it to end, so an endpoint that
    /// is down costs one call's retries, not one per worker.
    fn acquire(&self) -> Result<(), String> {
        let slot = {
            let mut s = self.wait_for_first_call();
            if let Some(why) = s.stopped.clone().or_else(|| self.limit_reached(&s)) {
                s.stopped.get_or_insert(why.clone());
                return Err(format!("not asked: {why}"));
            }
            let now = Instant::now();
            let slot = s.next_slot.map_or(now, |n| n.max(now));
            s.next_slot = self.interval.map(|i| slot + i);
            s.in_flight += 1;
            slot
        };
        if self.deadline.is_some_and(|d| slot >= d) {
            self.lock().in_flight -= 1;
            self.stop(WALL.to_owned());
            return Err(format!("not asked: {WALL}"));
        }
        std::thread::sleep(slot.saturating_duration_since(Instant::now()));
        Ok(())
    }

    /// The state, once no call has started or one has ended (or the wall-clock limit has
    /// passed: the caller then stops).
    fn wait_for_first_call(&self) -> std::sync::MutexGuard<'_, GateState> {
        let mut s = self.lock();
        while s.ended == 0 && s.in_flight > 0 && self.deadline.is_none_or(|d| Instant::now() < d) {
            let wait = self.deadline.map_or(Duration::from_secs(1), |d| d.saturating_duration_since(Instant::now()));
            s = self.ended.wait_timeout(s, wait.min(Duration::from_secs(1))).expect("not poisoned").0;
        }
        s
    }

    /// Why no further call may start, if so.
    fn limit_reached(&self, s: &GateState) -> Option<String> {
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Some(WALL.to_owned());
        }
        if let Some(max) = self.budget.max_calls.filter(|&m| s.calls + s.in_flight >= m) {
            return Some(format!("the call budget is spent: {max} calls (--max-calls)"));
        }
        let tokens = s.prompt_tokens + s.completion_tokens;
        self.budget.max_tokens.filter(|&m| tokens >= m).map(|max| {
            format!("the token budget is spent: {tokens} tokens used, the limit is {max} (--max-total-tokens)")
        })
    }

    /// Counts a successful call; returns its `(prompt tokens, completion tokens, cost)`.
    fn record(&self, req: &ChatRequest, resp: &ChatResponse) -> (u64, u64, Option<f64>) {
        let rec = crate::llm::CallRecord::new(req, resp, &self.prices);
        let mut s = self.lock();
        s.in_flight -= 1;
        s.ended += 1;
        self.ended.notify_all();
        s.calls += 1;
        s.errors_in_a_row = 0;
        s.prompt_tokens += rec.prompt_tokens;
        s.completion_tokens += rec.completion_tokens;
        if let Some(c) = rec.cost_usd {
            s.cost_usd = Some(s.cost_usd.unwrap_or(0.0) + c);
        }
        (rec.prompt_tokens, rec.completion_tokens, rec.cost_usd)
    }

    /// Counts a failed call; stops the run at the wall-clock limit, when the endpoint cannot
    /// be reached before any reply arrived, or after [`MAX_ERRORS_IN_A_ROW`] failures.
    fn failed(&self, e: &LlmError) {
        let mut s = self.lock();
        s.in_flight -= 1;
        s.ended += 1;
        self.ended.notify_all();
        s.errors_in_a_row += 1;
        s.answered_badly += u64::from(e.reply_arrived());
        let why = match e {
            LlmError::Deadline { .. } => Some(WALL.to_owned()),
            // Nothing has ever answered: the endpoint is down or the URL wrong; asking every
            // row would only repeat the client's retries. The HTTP client reports a refused
            // connection as retries exhausted, hence `is_unreachable`.
            e if e.is_unreachable() && s.calls == 0 && s.answered_badly == 0 => {
                Some(format!("cannot reach the model endpoint: {e}"))
            }
            _ if s.errors_in_a_row >= MAX_ERRORS_IN_A_ROW => {
                Some(format!("{MAX_ERRORS_IN_A_ROW} model calls in a row failed, the last with: {e}"))
            }
            _ => None,
        };
        if let Some(why) = why {
            s.stopped.get_or_insert(why);
        }
    }

    /// Stops the run (the first reason is kept).
    fn stop(&self, why: String) {
        self.lock().stopped.get_or_insert(why);
    }

    /// Copies the sums and the stop reason into `summary`.
    fn fill(self, summary: &mut LabelSummary) {
        let s = self.state.into_inner().expect("not poisoned");
        summary.stopped = s.stopped;
        (summary.calls, summary.prompt_tokens, summary.completion_tokens) =
            (s.calls, s.prompt_tokens, s.completion_tokens);
        summary.cost_usd = s.cost_usd;
    }
}

/// The stop reason at the wall-clock limit.
const WALL: &str = "the wall-clock limit was reached (--max-wall-s)";
