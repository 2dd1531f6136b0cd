//! indicatif progress bars fed by the indexer's [`Progress`] callbacks. Drawing never
//! fails the build: indicatif drops draws it cannot make, and a hidden bar draws nothing.

use std::sync::Mutex;
use std::time::Duration;

use indexer::build::{Progress, Stage};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// One bar per stage, on stderr.
#[derive(Debug)]
pub struct Bars {
    hidden: bool,
    bar: Mutex<Option<ProgressBar>>,
}

impl Bars {
    /// Bars on stderr, or none when `hidden`.
    pub fn new(hidden: bool) -> Bars {
        Bars { hidden, bar: Mutex::new(None) }
    }

    /// A new bar for `stage` of `total` steps (hidden when `hidden`), styled and named.
    fn bar_for(&self, stage: Stage, total: u64) -> ProgressBar {
        let target = if self.hidden { ProgressDrawTarget::hidden() } else { ProgressDrawTarget::stderr() };
        let bar = ProgressBar::with_draw_target(Some(total), target);
        bar.set_style(style(stage, total));
        bar.set_message(label(stage));
        bar
    }

    /// Removes any bar still drawn.
    pub fn clear(&self) {
        if let Some(b) = self.bar.lock().ok().and_then(|mut g| g.take()) {
            b.finish_and_clear();
        }
    }
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
        self.clear();
        let bar = self.bar_for(stage, total);
        if spins(stage, total) {
            bar.enable_steady_tick(Duration::from_millis(120));
        }
        if let Ok(mut g) = self.bar.lock() {
            *g = Some(bar);
        }
    }

    fn advance(&self, n: u64) {
        if let Some(b) = self.bar.lock().ok().as_ref().and_then(|g| g.as_ref()) {
            b.inc(n);
        }
    }

    fn finish(&self) {
        self.clear();
    }
}
