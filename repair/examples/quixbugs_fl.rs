//! SBFL (Ochiai over JaCoCo / coverage.py, `repair::fl`) on every QuixBugs program: the rank
//! of the best-ranked line the developer's fix removes (best case `rank`, worst case
//! `rank + ties − 1`) and of the first method, per program and summed per language. A
//! measurement, not a test (about 7 minutes on 2 cores); the shared suite asserts the ranks
//! of a chosen few (`repair/tests/integration/shared.rs`, `shared_fl_*`).
//!
//! Usage (from the project root, test tools from `scripts/setup-test-tools.sh`):
//! `cargo run --workspace --example quixbugs_fl -- ../shared/benchmarks/quixbugs
//!  ../shared/data/quixbugs.jsonl`

use std::path::Path;

use anyhow::{Context, bail};
use repair::bench::quixbugs::{self, GroundTruth, Lang, Program, Runner};

/// The lines of `program`'s buggy file the developer fix removes.
fn buggy_lines(root: &Path, truth: &GroundTruth, program: &Program) -> anyhow::Result<Vec<u32>> {
    let text = std::fs::read_to_string(root.join(&program.source))?;
    truth
        .buggy_lines(program, &text)
        .with_context(|| format!("{}: no ground truth, or a hunk not in the file", program.name))
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [root, truth] = &args[..] else { bail!("usage: quixbugs_fl QUIXBUGS_ROOT QUIXBUGS_JSONL") };
    let root = Path::new(root);
    let truth = GroundTruth::load(Path::new(truth))?;
    for lang in [Lang::Java, Lang::Python] {
        let runner = Runner::new(root, lang, std::time::Duration::from_secs(120))?;
        let (mut top1, mut top5, mut method1, mut total) = (0, 0, 0, 0);
        for p in quixbugs::discover(root, lang)? {
            total += 1;
            let bug = buggy_lines(root, &truth, &p)?;
            let report = match quixbugs::sbfl(&runner, &p) {
                Ok(r) => r,
                Err(e) => {
                    println!("{lang} {}: {}", p.name, e.to_string().lines().next().unwrap_or(""));
                    continue;
                }
            };
            let file = p.source.to_string_lossy();
            let line = report.lines.iter().find(|l| l.file == file && bug.contains(&l.line));
            let worst = line.map(|l| l.rank + l.ties - 1);
            top1 += usize::from(line.is_some_and(|l| l.rank == 1));
            top5 += usize::from(worst.is_some_and(|w| w <= 5));
            method1 += usize::from(report.methods.first().is_some_and(|m| m.rank == 1 && m.ties == 1));
            println!(
                "{lang} {}: bug lines {bug:?}, best {:?}, method {:?}",
                p.name,
                line.map(|l| (l.line, l.rank, l.ties, l.ef, l.ep)),
                report.methods.first().map(|m| (&m.name, m.rank, m.ties))
            );
        }
        println!(
            "{lang}: {total} programs, buggy line rank 1 (best case) {top1}, worst case <= 5 {top5}, single first method {method1}"
        );
    }
    Ok(())
}
