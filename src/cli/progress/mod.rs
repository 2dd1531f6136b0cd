//! The indexer's [`Progress`] callbacks on stderr: indicatif bars on a terminal, plain lines
//! every 10 s elsewhere ([`lines`]; a batch job's log gets them, where indicatif draws
//! nothing). The hidden knob `FIXDEX_PROGRESS_INTERVAL_MS` sets the lines' interval (the
//! tests use a short one). Reporting never fails the build: indicatif drops draws it cannot
//! make, a line that cannot be written is dropped, and a hidden reporter does nothing.

mod lines;

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::Duration;

use indexer::build::{Progress, Stage};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use lines::Lines;

/// The environment variable that sets the interval of the plain lines, milliseconds (a
/// hidden knob: unset, empty, 0 or not a number is [`LINE_INTERVAL`]).
pub const INTERVAL_ENV: &str = "FIXDEX_PROGRESS_INTERVAL_MS";

/// The interval of the plain lines by default.
pub const LINE_INTERVAL: Duration = Duration::from_secs(10);

/// Progress on stderr: one bar per stage on a terminal, a line every interval elsewhere,
/// or nothing.
#[derive(Debug)]
pub struct Bars {
    mode: Mode,
}

/// How [`Bars`] reports.
#[derive(Debug)]
enum Mode {
    /// Nothing (`--quiet`).
    Hidden,
    /// indicatif bars, stderr being a terminal.
    Bar(Mutex<Option<ProgressBar>>),
    /// Plain lines ([`lines`]).
    Lines(Lines),
}

impl Bars {
    /// The reporter of `fixdex index`: nothing with `--quiet`; when stderr is a terminal,
    /// bars (none with `--json`, as before); else plain lines every [`LINE_INTERVAL`] (or
    /// [`INTERVAL_ENV`]), also with `--json`, whose output goes to stdout.
    pub fn new(quiet: bool, json: bool) -> Bars {
        let terminal = std::io::stderr().is_terminal();
        let mode = if quiet || (json && terminal) {
            Mode::Hidden
        } else if terminal {
            Mode::Bar(Mutex::new(None))
        } else {
            Mode::Lines(Lines::new(line_interval()))
        };
        Bars { mode }
    }

    /// A new bar for `stage` of `total` steps on stderr, styled and named.
    fn bar_for(stage: Stage, total: u64) -> ProgressBar {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        bar.set_style(style(stage, total));
        bar.set_message(label(stage));
        bar
    }

    /// Removes any bar still drawn, or stops the lines: nothing more is reported.
    pub fn clear(&self) {
        match &self.mode {
            Mode::Hidden => {}
            Mode::Bar(bar) => clear_bar(bar),
            Mode::Lines(lines) => lines.stop(),
        }
    }
}

/// Removes the bar in `slot`, if any.
fn clear_bar(slot: &Mutex<Option<ProgressBar>>) {
    if let Some(b) = slot.lock().ok().and_then(|mut g| g.take()) {
        b.finish_and_clear();
    }
}

/// The lines' interval: [`INTERVAL_ENV`] when it holds a positive number, else
/// [`LINE_INTERVAL`].
fn line_interval() -> Duration {
    let ms = std::env::var(INTERVAL_ENV).ok().and_then(|v| v.trim().parse::<u64>().ok()).filter(|&ms| ms > 0);
    ms.map_or(LINE_INTERVAL, Duration::from_millis)
}

/// Whether the bar of `stage` is a spinner: no total known, or a stage without steps.
fn spins(stage: Stage, total: u64) -> bool {
    total == 0 || matches!(stage, Stage::Graph(_) | Stage::Label)
}

/// The name of `stage` on its bar.
fn label(stage: Stage) -> String {
    match stage {
        Stage::Read => "reading".into(),
        Stage::Label => "labelling actions".into(),
        Stage::Tokenize => "tokenizing".into(),
        Stage::Embed(s) => format!("embedding {s}"),
        Stage::Graph(s) => format!("HNSW graph {s}"),
        Stage::Write => "writing".into(),
    }
}

/// The bar's template for `stage`: a spinner (see [`spins`]), bytes while reading, else items.
fn style(stage: Stage, total: u64) -> ProgressStyle {
    let template = match (stage, total) {
        (_, 0) | (Stage::Graph(_) | Stage::Label, _) => "{spinner} {msg} [{elapsed_precise}]",
        (Stage::Read, _) => "{msg:>18} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} ETA {eta}",
        _ => "{msg:>18} [{bar:30}] {pos}/{len} {per_sec} ETA {eta}",
    };
    ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()).progress_chars("=> ")
}

impl Progress for Bars {
    fn start(&self, stage: Stage, total: u64) {
        match &self.mode {
            Mode::Hidden => {}
            Mode::Bar(slot) => start_bar(slot, stage, total),
            Mode::Lines(lines) => lines.start(stage, total),
        }
    }

    fn advance(&self, n: u64) {
        match &self.mode {
            Mode::Hidden => {}
            Mode::Bar(slot) => {
                if let Some(b) = slot.lock().ok().as_ref().and_then(|g| g.as_ref()) {
                    b.inc(n);
                }
            }
            Mode::Lines(lines) => lines.advance(n),
        }
    }

    fn finish(&self) {
        match &self.mode {
            Mode::Hidden => {}
            Mode::Bar(slot) => clear_bar(slot),
            Mode::Lines(lines) => lines.finish(),
        }
    }
}

/// Replaces the bar in `slot` with a new one for `stage` of `total` steps (spinning when
/// [`spins`]).
fn start_bar(slot: &Mutex<Option<ProgressBar>>, stage: Stage, total: u64) {
    clear_bar(slot);
    let bar = Bars::bar_for(stage, total);
    if spins(stage, total) {
        bar.enable_steady_tick(Duration::from_millis(120));
    }
    if let Ok(mut g) = slot.lock() {
        *g = Some(bar);
    }
}
