//! Run by `.ci/run` with FIXDEX_SHARED=../shared. They fail (never skip) when it is unset.

use std::path::Path;

use repair::patch::Patch;

use crate::common::shared_path;

/// The ground-truth diff of every QuixBugs program (function-relative line numbers, so
/// only context matching can place it) turns the buggy file into one holding the correct
/// function.
#[test]
fn shared_quixbugs_ground_truth_diffs_apply() {
    let records = std::fs::read_to_string(shared_path("data/quixbugs.jsonl")).unwrap();
    let programs = shared_path("benchmarks/quixbugs");
    let mut failures = Vec::new();
    let mut count = 0;
    for line in records.lines() {
        let record: serde_json::Value = serde_json::from_str(line).unwrap();
        let (id, rel) = (record["id"].as_str().unwrap(), record["meta"]["buggy_path"].as_str().unwrap());
        let fixed = record["fixed_code"].as_str().unwrap();
        if let Err(why) =
            apply_ground_truth(&programs.join(rel), Path::new(rel), record["diff"].as_str().unwrap(), fixed)
        {
            failures.push(format!("{id}: {why}"));
        }
        count += 1;
    }
    assert_eq!(count, 80, "quixbugs.jsonl should hold 40 Java + 40 Python records");
    assert!(failures.is_empty(), "{} of {count} failed:\n{}", failures.len(), failures.join("\n"));
}

fn apply_ground_truth(source: &Path, rel: &Path, diff: &str, fixed: &str) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join(rel);
    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
    let original = std::fs::read(source).unwrap();
    std::fs::write(&target, &original).unwrap();
    let patch = Patch::parse(diff, Some(rel)).map_err(|e| e.feedback())?;
    let applied = patch.apply(dir.path()).map_err(|e| e.feedback())?;
    let patched = std::fs::read_to_string(&target).unwrap();
    // No ground-truth hunk touches a CRLF line (wrap.py has one): endings stay as they were.
    let crlf = |bytes: &[u8]| bytes.windows(2).filter(|w| w == b"\r\n").count();
    if crlf(&original) != crlf(patched.as_bytes()) {
        return Err("the patch changed line endings".into());
    }
    if !patched.replace("\r\n", "\n").contains(fixed) {
        return Err(format!("the fixed function is not in the patched file; applied:\n{}", applied.diff));
    }
    Ok(())
}

/// Issue 4's harness check on the real benchmark, on a seeded sample of 4 Java and 4 Python
/// programs (`common::sample_size`, `common::sample_seed`): the buggy version fails its tests and the ground-truth
/// fix, applied through the patch path in a scratch copy, is plausible (real javac/JUnit 4
/// and pytest runs), with no flaky program. The whole benchmark (80 programs, the same
/// thresholds: 40/40/40 per language, none flaky) is `scripts/measure.sh quixbugs-check`.
/// The sample runs with a 30 s command limit (a looping buggy version then costs 30 s, not
/// 120 s); every fixed program's tests take a few seconds.
#[test]
fn shared_quixbugs_ground_truth_oracle_sample() {
    use repair::bench::quixbugs::{self, GroundTruth, Lang, Runner};
    let root = shared_path("benchmarks/quixbugs");
    let truth = GroundTruth::load(&shared_path("data/quixbugs.jsonl")).unwrap();
    let seed = crate::common::sample_seed("QuixBugs sample (programs per language)");
    for lang in [Lang::Java, Lang::Python] {
        let runner = Runner::new(&root, lang, std::time::Duration::from_secs(30)).unwrap_or_else(|e| panic!("{e}"));
        let programs = quixbugs::discover(&root, lang).unwrap();
        assert_eq!(programs.len(), 40, "{lang}");
        let programs = quixbugs::sample(programs, crate::common::sample_size(), seed);
        let names: Vec<&str> = programs.iter().map(|p| p.name.as_str()).collect();
        eprintln!("{lang}: {names:?}");
        let s = quixbugs::oracle(&runner, &truth, &programs, 2, 2, &|_, _, _| {}).unwrap();
        let n = programs.len();
        assert_eq!(
            (s.total, s.buggy_failed, s.fixed_plausible),
            (n, n, n),
            "{lang} {names:?}: {:?} {:?}",
            s.failed_checks,
            s.flaky
        );
        assert!(s.flaky.is_empty(), "{lang}: flaky {:?}", s.flaky);
    }
}

/// 1-based lines of the buggy QuixBugs file that the developer fix removes or replaces: the
/// `-` lines of the ground-truth diff, placed by matching each hunk's old side (context and
/// `-` lines) against the file, since hunk numbers are relative to the function.
fn quixbugs_buggy_lines(
    root: &Path,
    truth: &repair::bench::quixbugs::GroundTruth,
    program: &repair::bench::quixbugs::Program,
) -> Vec<u32> {
    let text = std::fs::read_to_string(root.join(&program.source)).unwrap();
    truth
        .buggy_lines(program, &text)
        .unwrap_or_else(|| panic!("{}: no ground truth, or a hunk not in the file", program.name))
}

/// SBFL (Ochiai) on QuixBugs programs whose buggy line the failing tests execute: the
/// line removed by the developer fix is within the top 5 even in the worst case of its tie
/// group (`rank + ties - 1 <= 5`), and the buggy method alone ranks first. Measured ranks
/// (best-worst): GET_FACTORS 1-3, QUICKSORT 1-2, SUBSEQUENCES 1-1,
/// IS_VALID_PARENTHESIZATION 1-2, NEXT_PERMUTATION 1-4; gcd 1-1, kth 1-1, sieve 1-1,
/// subsequences 1-1, next_palindrome 1-1. Programs whose buggy version loops until the test
/// timeout (BITCOUNT: 9 tests x the timeout) rank as well but are too slow for CI.
#[test]
fn shared_fl_quixbugs_buggy_line_in_top_5() {
    use repair::bench::quixbugs::{self, GroundTruth, Lang, Runner};
    let root = shared_path("benchmarks/quixbugs");
    let truth = GroundTruth::load(&shared_path("data/quixbugs.jsonl")).unwrap();
    let picks = [
        (Lang::Java, ["GET_FACTORS", "QUICKSORT", "SUBSEQUENCES", "IS_VALID_PARENTHESIZATION", "NEXT_PERMUTATION"]),
        (Lang::Python, ["gcd", "kth", "sieve", "subsequences", "next_palindrome"]),
    ];
    let mut failures = Vec::new();
    for (lang, names) in picks {
        let runner = Runner::new(&root, lang, std::time::Duration::from_secs(120)).unwrap_or_else(|e| panic!("{e}"));
        let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        for p in quixbugs::select(quixbugs::discover(&root, lang).unwrap(), &names).unwrap() {
            let (line, method) = fl_ranks(&runner, &truth, &root, &p);
            eprintln!("{lang} {}: buggy line rank {line:?}, method {method:?}", p.name);
            let function = match lang {
                Lang::Java => format!("{}.{}", p.name, p.name.to_lowercase()),
                Lang::Python => p.name.clone(),
            };
            if line.is_none_or(|(_, rank, ties)| rank + ties - 1 > 5) || method != Some((function, 1, 1)) {
                failures.push(format!("{lang} {}: line {line:?}, method {method:?}", p.name));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The best-ranked buggy line `(line, rank, ties)` and the first method `(name, rank, ties)`.
type Ranks = (Option<(u32, usize, usize)>, Option<(String, usize, usize)>);

fn fl_ranks(
    runner: &repair::bench::quixbugs::Runner,
    truth: &repair::bench::quixbugs::GroundTruth,
    root: &Path,
    program: &repair::bench::quixbugs::Program,
) -> Ranks {
    let bug = quixbugs_buggy_lines(root, truth, program);
    let report = repair::bench::quixbugs::sbfl(runner, program).unwrap_or_else(|e| panic!("{}: {e}", program.name));
    let file = program.source.to_string_lossy();
    let line = report.lines.iter().find(|l| l.file == file && bug.contains(&l.line));
    let method = report.methods.first().map(|m| (m.name.clone(), m.rank, m.ties));
    (line.map(|l| (l.line, l.rank, l.ties)), method)
}

/// Issue 9, fault 6, on QuixBugs' own Java GCD: its five tests each print
/// `java.lang.StackOverflowError` and 1,024 identical frames; the first prompt keeps the
/// exception line, folds the frames and names the last failing test.
#[test]
fn shared_issue_9_java_gcd_prompt_keeps_the_exception() {
    let root = shared_path("benchmarks/quixbugs");
    let prompt = crate::failure::first_prompt(&root, repair::bench::quixbugs::Lang::Java, "GCD", "gcd");
    assert!(prompt.contains("java.lang.StackOverflowError"), "{prompt}");
    assert!(prompt.contains("more identical frames"), "{prompt}");
    assert!(prompt.contains("test_4(java_testcases.junit.GCD_TEST)"), "{prompt}");
    assert!(crate::failure::longest_run(&prompt) < 3, "repeated frames were not folded:\n{prompt}");
}

/// TraceRepair's `--probe auto` instrumentation (issue 13) on a seeded sample of 4 Java and
/// 4 Python programs (`repair::bench::quixbugs::probe_check`): the method or function holding the
/// first buggy line gets at least one probe and its instrumented copy compiles (javac, with
/// the other QuixBugs classes on the source path) or byte-compiles (py_compile), in
/// ≥ 95 % of the programs with such a method (TraceRepair reports 93.8 % on Defects4J).
/// `scripts/measure.sh probes` runs it on the whole benchmark (`FIXDEX_SAMPLE=all`), where
/// the threshold on programs found is ≥ 75 of 80.
#[test]
fn shared_tracerepair_auto_probes_compile_on_quixbugs() {
    use repair::bench::quixbugs::{self, Lang};
    let root = shared_path("benchmarks/quixbugs");
    let tmp = tempfile::tempdir().unwrap();
    let seed = crate::common::sample_seed("QuixBugs sample (programs per language)");
    let mut rows = Vec::new();
    let mut sampled = 0;
    for lang in [Lang::Java, Lang::Python] {
        let programs = quixbugs::sample(quixbugs::discover(&root, lang).unwrap(), crate::common::sample_size(), seed);
        sampled += programs.len();
        for program in &programs {
            match quixbugs::probe_check(&root, program, tmp.path()).unwrap() {
                Some(row) => rows.push(row),
                None => println!("{lang:<6} {:<32} no buggy line inside a method", program.name),
            }
        }
    }
    for r in &rows {
        let status = if r.compiled { "ok" } else { "FAILED" };
        println!("{:<6} {:<32} probes {:>3} skipped {:>2} {status}", r.lang, r.program, r.probes, r.skipped);
    }
    let ok = rows.iter().filter(|r| r.compiled).count();
    println!("instrumented and compiled: {ok} of {}", rows.len());
    // 75 of 80 on the whole benchmark: the same share of the sample.
    assert!(rows.len() * 80 >= sampled * 75, "{} of {sampled} programs found", rows.len());
    assert!(rows.iter().all(|r| r.probes > 0), "a program without a probe: {:?}", rows.iter().find(|r| r.probes == 0));
    assert!(ok * 100 >= rows.len() * 95, "{ok} of {} compiled", rows.len());
}

/// A Defects4J harness over Defects4J's metadata and the development set's git bundles (Cli
/// and JxPath) in ../shared, setting bugs up under `work`.
fn dev_set_harness(work: &Path) -> repair::bench::defects4j::Harness {
    let mut h = repair::bench::defects4j::Harness::new(&shared_path("benchmarks/defects4j/projects"), work);
    h.repos.insert("Cli".into(), shared_path("repos/commons-cli.bundle"));
    h.repos.insert("JxPath".into(), shared_path("repos/commons-jxpath.bundle"));
    h
}

/// The Defects4J harness on the development set (Cli and JxPath from their git bundles and
/// Defects4J's metadata): a seeded sample of `FIXDEX_SAMPLE` bugs (default 4: half from each
/// project) is set up from git, built with javac against the shipped jar table and passes
/// the gold check (fixed version passes its triggers, the
/// buggy one fails one). The whole set (61 bugs, all must pass) is `scripts/measure.sh
/// defects4j-check`.
#[test]
fn shared_defects4j_gold_check_sample() {
    let work = tempfile::tempdir().unwrap();
    let h = dev_set_harness(work.path());
    let seed = crate::common::sample_seed("Defects4J gold-check sample (half of it per project, at least 1)");
    let per_project = crate::common::sample_size().max(2) / 2;
    let mut bugs = Vec::new();
    for (project, count) in [("Cli", 39), ("JxPath", 22)] {
        let mut all = h.select(project).unwrap();
        assert_eq!(all.len(), count, "{project}: active bugs");
        fastrand::Rng::with_seed(seed).shuffle(&mut all);
        all.truncate(per_project);
        all.sort();
        bugs.extend(all);
    }
    eprintln!("Defects4J sample: {}", bugs.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "));
    let checks = repair::bench::batch::parallel(bugs.len(), 2, |i| h.prepare(&bugs[i]).map(|p| p.check));
    let failed: Vec<String> = bugs
        .iter()
        .zip(&checks)
        .filter_map(|(b, c)| match c {
            Ok(c) if c.passed && !c.failing_triggers.is_empty() => None,
            Ok(c) => Some(format!("{b}: {:?}", c.reason)),
            Err(e) => Some(format!("{b}: {e}")),
        })
        .collect();
    assert!(failed.is_empty(), "{} of {} failed the gold check:\n{}", failed.len(), bugs.len(), failed.join("\n"));
}

/// The Defects4J development-set bugs whose developer fix `--strategy patterns
/// --no-retrieval` makes under perfect localization (binary c87e117, 200 validations: the
/// fix is their first plausible patch, or, for JxPath-10 and Cli-36, a candidate within the
/// budget: a single edit before it passes the tests, and Cli-36's fix also changes a second
/// file), with the 1-based position of the fix in the candidate list then
/// (`scripts/d4j-fixrank.py`). The whole list is checked by `scripts/measure.sh
/// defects4j-fixrank`.
pub const D4J_FIXES: [(&str, usize); 12] = [
    ("Cli-5", 9),
    ("Cli-7", 1),
    ("Cli-8", 21),
    ("Cli-17", 24),
    ("Cli-25", 11),
    ("Cli-27", 2),
    ("Cli-28", 2),
    ("Cli-32", 1),
    ("Cli-36", 1),
    ("JxPath-5", 1),
    ("JxPath-8", 61),
    ("JxPath-10", 18),
];

/// The templates still make the developer's fix of Defects4J bugs they made it for: a seeded
/// sample of `FIXDEX_SAMPLE` (default 4) of [`D4J_FIXES`] is set up from git, and the fix of
/// its primary file (the developer's fixed file, graded exact or AST) is among the candidates
/// `--strategy patterns --no-retrieval` validates within 200 under perfect localization
/// ([`repair::strategies::patterns::perfect_localization_candidates`]; no test run). The
/// position may move as templates are added; it fails when the fix drops past the budget
/// or is no longer made. Its position is printed beside the one measured at c87e117.
#[test]
fn shared_defects4j_template_fixes_stay_within_budget() {
    use repair::Language;
    use repair::bench::grade::grade;
    use repair::strategies::patterns::{perfect_localization_candidates, templates::ProjectTypes};
    let work = tempfile::tempdir().unwrap();
    let h = dev_set_harness(work.path());
    let mut sample = D4J_FIXES.to_vec();
    fastrand::Rng::with_seed(crate::common::sample_seed("Defects4J fix-rank sample (bugs)")).shuffle(&mut sample);
    sample.truncate(crate::common::sample_size().max(1));
    sample.sort_unstable();
    let ids: Vec<_> = sample.iter().map(|(b, _)| h.select(b).unwrap().remove(0)).collect();
    let prepared = repair::bench::batch::parallel(ids.len(), 2, |i| h.prepare(&ids[i]));
    let mut lost = Vec::new();
    for ((bug, measured), p) in sample.iter().zip(prepared) {
        let p = p.unwrap_or_else(|e| panic!("{bug}: {}", e.detail()));
        let (file, lines) = p.primary_file().expect("the developer's patch touches a file");
        let text = std::fs::read_to_string(p.buggy.join(file)).unwrap();
        let developer = std::fs::read_to_string(p.fixed.join(file)).unwrap();
        let span = (*lines.first().unwrap(), *lines.last().unwrap());
        let project = ProjectTypes::scan(&p.buggy);
        let candidates = perfect_localization_candidates(&text, Language::Java, span, &project, 200);
        let at = candidates.iter().position(|e| {
            let patched = e.applied(&text);
            grade(&patched, &developer, Some(Language::Java)).correct()
        });
        eprintln!(
            "{bug}: the fix at {:?} of {} candidates (at c87e117: {measured})",
            at.map(|i| i + 1),
            candidates.len()
        );
        if at.is_none_or(|i| i >= 200) {
            lost.push(format!("{bug}: the fix at {at:?}, was {measured}"));
        }
    }
    assert!(lost.is_empty(), "the templates no longer make these fixes within 200 candidates:\n{}", lost.join("\n"));
}
