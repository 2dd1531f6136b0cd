//! Ochiai scores over test spectra, ranking with exact ties, and aggregation to methods.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::path::Path;

use super::{FlError, FlReport, LineScore, MethodScore, Outcome, Result, TestCoverage, TestOutcome, methods};

/// Ochiai suspiciousness of a program element, in [0, 1]:
/// `ef / sqrt((ef + nf) * (ef + ep))`, where `ef` / `ep` are the failing / passing tests
/// that execute the element and `nf` the failing tests that do not. 0 when `ef` is 0.
///
/// Source: R. Abreu, P. Zoeteweij, A. J. C. van Gemund, *On the Accuracy of Spectrum-based
/// Fault Localization*, TAICPART-MUTATION 2007, pp. 89-98 (the coefficient is from
/// A. Ochiai, 1957).
pub fn ochiai(ef: u32, ep: u32, nf: u32) -> f64 {
    let denominator = (f64::from(ef) + f64::from(nf)) * (f64::from(ef) + f64::from(ep));
    if ef == 0 { 0.0 } else { f64::from(ef) / denominator.sqrt() }
}

/// The counts that order two elements of one report exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Counts {
    ef: u32,
    ep: u32,
}

/// Compare the Ochiai scores of `a` and `b` exactly. All elements of a report share the
/// number of failing tests `F = ef + nf`, so `score² = ef² / (F (ef + ep))` and the order is
/// that of `ef² / (ef + ep)`, compared by cross-multiplication in integers: equal scores
/// are equal, never split by rounding.
fn cmp_score(a: Counts, b: Counts) -> Ordering {
    match (a.ef, b.ef) {
        (0, 0) => Ordering::Equal,
        (0, _) => Ordering::Less,
        (_, 0) => Ordering::Greater,
        _ => {
            let left = u128::from(a.ef).pow(2) * (u128::from(b.ef) + u128::from(b.ep));
            let right = u128::from(b.ef).pow(2) * (u128::from(a.ef) + u128::from(a.ep));
            left.cmp(&right)
        }
    }
}

/// Rank per-test coverage with Ochiai: every line covered by a passing or failing test
/// (skipped tests are left out), then every method holding such a line (spans parsed from
/// the files under `dir`, which must be the tree the tests ran on).
///
/// # Order and ties
/// Lines are sorted by score descending, then file and line ascending; methods by score,
/// then file and start line. Scores are compared exactly (see the counts), so ties are
/// real: tied elements share `rank` = 1 + the number of strictly better elements, and
/// `ties` is the size of the group (worst-case rank `rank + ties - 1`).
///
/// # Errors
/// [`FlError::NoTests`] when no test passed or failed, [`FlError::NoFailingTest`] when none
/// failed, [`FlError::NoCoverage`] when the counted tests covered no line.
pub fn localize(dir: &Path, tests: &[TestCoverage]) -> Result<FlReport> {
    let counted: Vec<_> = tests.iter().filter(|t| t.outcome != Outcome::Skipped).collect();
    let failed = counted.iter().filter(|t| t.outcome == Outcome::Failed).count();
    let passed = counted.len() - failed;
    if counted.is_empty() {
        return Err(FlError::NoTests);
    }
    if failed == 0 {
        return Err(FlError::NoFailingTest { passed });
    }
    let lines = line_scores(&counted, failed, passed);
    if lines.is_empty() {
        return Err(FlError::NoCoverage { hint: "check the measured sources / includes".into() });
    }
    let methods = method_scores(dir, &lines);
    let tests = tests
        .iter()
        .map(|t| TestOutcome {
            name: t.name.clone(),
            outcome: t.outcome,
            covered_lines: t.covered.values().map(|l| l.len()).sum(),
        })
        .collect();
    Ok(FlReport { formula: "ochiai".into(), tests, failed, passed, lines, methods, wall_ms: 0 })
}

/// Count, score and rank every covered line.
fn line_scores(counted: &[&TestCoverage], failed: usize, passed: usize) -> Vec<LineScore> {
    let mut spectra: BTreeMap<(&str, u32), Counts> = BTreeMap::new();
    for t in counted {
        for (file, lines) in &t.covered {
            for &line in lines {
                let c = spectra.entry((file.as_str(), line)).or_insert(Counts { ef: 0, ep: 0 });
                if t.outcome == Outcome::Failed { c.ef += 1 } else { c.ep += 1 }
            }
        }
    }
    let total = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let mut lines: Vec<_> = spectra
        .into_iter()
        .map(|((file, line), c)| LineScore {
            file: file.to_string(),
            line,
            score: ochiai(c.ef, c.ep, total(failed) - c.ef),
            ef: c.ef,
            ep: c.ep,
            nf: total(failed) - c.ef,
            np: total(passed) - c.ep,
            rank: 0,
            ties: 0,
        })
        .collect();
    let counts = |l: &LineScore| Counts { ef: l.ef, ep: l.ep };
    // The map yields (file, line) order; a stable sort by score keeps it among equals.
    lines.sort_by(|a, b| cmp_score(counts(b), counts(a)));
    let keys: Vec<_> = lines.iter().map(counts).collect();
    for (l, (rank, ties)) in lines.iter_mut().zip(ranks(&keys)) {
        (l.rank, l.ties) = (rank, ties);
    }
    lines
}

/// `(rank, ties)` of each element of `sorted` (best first).
fn ranks(sorted: &[Counts]) -> Vec<(usize, usize)> {
    let mut out = Vec::with_capacity(sorted.len());
    for group in sorted.chunk_by(|a, b| cmp_score(*a, *b) == Ordering::Equal) {
        let rank = out.len() + 1;
        out.extend(std::iter::repeat_n((rank, group.len()), group.len()));
    }
    out
}

/// Each method's best line (highest score, then first in the file), ranked.
fn method_scores(dir: &Path, lines: &[LineScore]) -> Vec<MethodScore> {
    let mut by_file: BTreeMap<&str, Vec<&LineScore>> = BTreeMap::new();
    for l in lines {
        by_file.entry(l.file.as_str()).or_default().push(l);
    }
    let mut best: Vec<(Counts, MethodScore)> = Vec::new();
    for (file, lines) in by_file {
        let spans = methods::spans(&dir.join(file));
        let mut per_method: BTreeMap<usize, &LineScore> = BTreeMap::new();
        for l in lines {
            let Some(i) = methods::innermost(&spans, l.line) else { continue };
            let better = |old: &&LineScore| cmp_score(counts(l), counts(old)).then(old.line.cmp(&l.line));
            if per_method.get(&i).is_none_or(|old| better(old) == Ordering::Greater) {
                per_method.insert(i, l);
            }
        }
        best.extend(per_method.into_iter().map(|(i, l)| (counts(l), method(file, &spans[i], l))));
    }
    best.sort_by(|(a, ma), (b, mb)| {
        cmp_score(*b, *a).then_with(|| ma.file.cmp(&mb.file)).then(ma.start_line.cmp(&mb.start_line))
    });
    let keys: Vec<_> = best.iter().map(|(c, _)| *c).collect();
    best.into_iter().zip(ranks(&keys)).map(|((_, m), (rank, ties))| MethodScore { rank, ties, ..m }).collect()
}

fn counts(l: &LineScore) -> Counts {
    Counts { ef: l.ef, ep: l.ep }
}

/// An unranked method score from its span and best line.
fn method(file: &str, span: &methods::Span, best: &LineScore) -> MethodScore {
    MethodScore {
        file: file.to_string(),
        name: span.name.clone(),
        start_line: u32::try_from(span.lines.first).unwrap_or(u32::MAX),
        end_line: u32::try_from(span.lines.last).unwrap_or(u32::MAX),
        score: best.score,
        line: best.line,
        rank: 0,
        ties: 0,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    fn test(name: &str, outcome: Outcome, lines: &[(&str, &[u32])]) -> TestCoverage {
        let covered = lines.iter().map(|(f, l)| (f.to_string(), l.iter().copied().collect::<BTreeSet<_>>())).collect();
        TestCoverage { name: name.into(), outcome, covered }
    }

    #[test]
    fn ochiai_matches_hand_values() {
        assert_eq!(ochiai(0, 3, 2), 0.0);
        assert_eq!(ochiai(2, 0, 0), 1.0);
        assert!((ochiai(2, 1, 0) - 2.0 / 6f64.sqrt()).abs() < 1e-15);
        assert!((ochiai(1, 0, 1) - 1.0 / 2f64.sqrt()).abs() < 1e-15);
    }

    #[test]
    fn exact_comparison_finds_real_ties() {
        // ef²/(ef+ep): 4/4 = 1 for (2, 2) and 1/1 = 1 for (1, 0): equal scores.
        assert_eq!(cmp_score(Counts { ef: 2, ep: 2 }, Counts { ef: 1, ep: 0 }), Ordering::Equal);
        assert_eq!(cmp_score(Counts { ef: 2, ep: 1 }, Counts { ef: 1, ep: 0 }), Ordering::Greater);
        assert_eq!(cmp_score(Counts { ef: 0, ep: 1 }, Counts { ef: 0, ep: 5 }), Ordering::Equal);
        let r = ranks(&[
            Counts { ef: 2, ep: 0 },
            Counts { ef: 2, ep: 1 },
            Counts { ef: 2, ep: 1 },
            Counts { ef: 0, ep: 1 },
        ]);
        assert_eq!(r, [(1, 1), (2, 2), (2, 2), (4, 1)]);
    }

    #[test]
    fn lines_and_methods_are_ranked() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("m.py"),
            "def f(n):\n    a = 1\n    b = 2\n    return a\n\ndef g():\n    return 0\n",
        )
        .unwrap();
        let tests = [
            test("t1", Outcome::Failed, &[("m.py", &[2, 3, 4])]),
            test("t2", Outcome::Passed, &[("m.py", &[2, 4, 7])]),
            test("t3", Outcome::Skipped, &[("m.py", &[7])]),
        ];
        let r = localize(dir.path(), &tests).unwrap();
        assert_eq!((r.failed, r.passed, r.tests.len(), r.tests[0].covered_lines), (1, 1, 3, 3));
        let got: Vec<_> = r.lines.iter().map(|l| (l.line, l.ef, l.ep, l.nf, l.np, l.rank, l.ties)).collect();
        assert_eq!(got, [(3, 1, 0, 0, 1, 1, 1), (2, 1, 1, 0, 0, 2, 2), (4, 1, 1, 0, 0, 2, 2), (7, 0, 1, 1, 0, 4, 1)]);
        assert_eq!(r.lines[0].score, 1.0);
        let got: Vec<_> =
            r.methods.iter().map(|m| (m.name.as_str(), m.line, m.start_line, m.end_line, m.rank)).collect();
        assert_eq!(got, [("f", 3, 1, 4, 1), ("g", 7, 6, 7, 2)]);
    }

    #[test]
    fn no_failing_test_and_no_test_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let pass = [test("t", Outcome::Passed, &[("a.py", &[1])])];
        assert!(matches!(localize(dir.path(), &pass), Err(FlError::NoFailingTest { passed: 1 })));
        let skip = [test("t", Outcome::Skipped, &[])];
        assert!(matches!(localize(dir.path(), &skip), Err(FlError::NoTests)));
        let empty = [test("t", Outcome::Failed, &[])];
        assert!(matches!(localize(dir.path(), &empty), Err(FlError::NoCoverage { .. })));
    }
}
