//! `fixdex eval report|compare|merge` on run folders the test writes in the layout
//! `fixdex eval defects4j` keeps (run.json, bugs/<id>/result.json, fixed/, patches/<n>/):
//! re-grading from the kept files, the pages (the HTML rendered by a real headless Chromium
//! from Debian, installed by scripts/setup-test-tools.sh), the paired comparison, the merge
//! of shards, and the errors on a folder that is not a run.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::common::fixdex;

const FIXED: &str = "class A {\n  int f(int x) {\n    return (x + 1) * 2;\n  }\n}\n";

fn run_json(bugs: &[&str], shard: Option<(u32, u32)>) -> Value {
    json!({"benchmark": "defects4j", "fixdex_version": "0.2.0", "started_unix": 5, "strategy": "patterns",
        "localization": "perfect", "model": null, "seed": 0, "shard": shard, "bugs": bugs,
        "settings": {"max_validations": 100}})
}

/// Writes bug `id`'s folder: `patch` (the patched A.java) kept as patch 1 when given, with
/// the tier the run saved (`saved`, possibly stale), `validations` validations.
fn write_bug(run: &Path, id: &str, patch: Option<&str>, saved: Option<&str>, validations: usize, cost: f64) {
    let bug = run.join("bugs").join(id);
    let file = "src/java/A.java";
    std::fs::create_dir_all(bug.join("fixed/src/java")).unwrap();
    std::fs::write(bug.join("fixed").join(file), FIXED).unwrap();
    let mut patches = vec![];
    if let Some(text) = patch {
        std::fs::create_dir_all(bug.join("patches/1/src/java")).unwrap();
        std::fs::write(bug.join("patches/1").join(file), text).unwrap();
        patches
            .push(json!({"diff": "--- a\n+++ b\n", "tier": saved, "validation": 3, "at_s": 1.5, "files": "patches/1"}));
    }
    let result = json!({"bug": id, "project": id.split('-').next().unwrap(), "status": "finished",
        "modified_files": [file], "outcome": if patch.is_some() { "plausible" } else { "budget_exhausted" },
        "reason": null, "localization": "perfect", "plausible": patch.is_some(), "best_tier": saved,
        "patches": patches, "validations": validations, "validation_median_s": 0.9,
        "first_plausible_validation": patch.map(|_| 3), "first_plausible_s": patch.map(|_| 1.5),
        "sampled": 0, "sampled_plausible": 0, "sampled_correct": 0, "calls": 2, "tokens": 100,
        "cost_usd": cost, "wall_s": 4.0});
    std::fs::write(bug.join("result.json"), serde_json::to_string_pretty(&result).unwrap()).unwrap();
}

fn write_run(dir: &Path, bugs: &[&str], shard: Option<(u32, u32)>) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("run.json"), run_json(bugs, shard).to_string()).unwrap();
}

fn ok_json(args: &[&str]) -> Value {
    let o = fixdex(args, None);
    assert!(o.status.success(), "fixdex {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn report_regrades_from_kept_files_and_renders_in_a_headless_browser() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    write_run(&run, &["Cli-1", "Cli-2", "Cli-3", "JxPath-1"], None);
    // Saved as needs_review, but an AST match (redundant parentheses): re-grading fixes it.
    write_bug(&run, "Cli-1", Some("class A { int f(int x) { return ((x + 1)) * 2; } }"), Some("needs_review"), 3, 0.01);
    // A different expression: needs review, whatever was saved.
    write_bug(&run, "Cli-2", Some("class A { int f(int x) { return x + 1 * 2; } }"), Some("exact"), 8, 0.02);
    write_bug(&run, "Cli-3", None, None, 100, 0.05);
    write_bug(&run, "JxPath-1", Some(FIXED), Some("exact"), 5, 0.01);
    let out = ok_json(&["eval", "report", run.to_str().unwrap(), "--json"]);
    assert_eq!(out["regraded_patches_changed"], 2, "{out}");
    let s = &out["summary"];
    assert_eq!(
        (s["plausible"].as_u64(), s["exact"].as_u64(), s["ast"].as_u64(), s["needs_review"].as_u64()),
        (Some(3), Some(1), Some(1), Some(1)),
        "{s}"
    );
    assert_eq!(s["projects"]["Cli"]["correct"], 1);
    assert!((s["cost_usd"].as_f64().unwrap() - 0.09).abs() < 1e-9);
    // The new tiers were written back.
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("bugs/Cli-1/result.json")).unwrap()).unwrap();
    assert_eq!(saved["best_tier"], "ast");
    let md = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(md.contains("| Cli | 3 | 3 | 2 | 0 | 1 | 1 | 1 | 0 | 0 |"), "{md}");

    // The HTML page, rendered by Chromium: the DOM it built holds the bug table and the chart.
    let browser = which("chromium-headless-shell")
        .or_else(|| which("chromium"))
        .expect("no headless Chromium: run scripts/setup-test-tools.sh (Debian package chromium-headless-shell)");
    let profile = tmp.path().join("profile");
    let page = run.join("report.html");
    let o = Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--dump-dom"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && dom.contains("<table id=\"bugs\">"), "{}\n{dom}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(dom.matches("<tr class=").count(), 4, "{dom}");
    assert!(dom.contains("<tr class=\"ast\"><td>Cli-1</td>"), "{dom}");
    assert!(
        dom.contains("<svg id=\"chart\"") && dom.contains("class=\"correct\"") && dom.contains("correct 2"),
        "{dom}"
    );
}

#[test]
fn compare_pairs_bugs_and_merge_joins_shards() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    write_run(&a, &["Cli-1", "Cli-2", "Cli-3"], None);
    write_run(&b, &["Cli-1", "Cli-2", "Cli-3"], None);
    write_bug(&a, "Cli-1", Some(FIXED), Some("exact"), 3, 0.01);
    write_bug(&a, "Cli-2", None, None, 100, 0.05);
    write_bug(&a, "Cli-3", None, None, 100, 0.05);
    write_bug(&b, "Cli-1", Some(FIXED), Some("exact"), 2, 0.01);
    write_bug(&b, "Cli-2", Some(FIXED), Some("exact"), 9, 0.02);
    write_bug(&b, "Cli-3", Some("class A {}"), Some("needs_review"), 40, 0.03);
    let c = ok_json(&["eval", "compare", a.to_str().unwrap(), b.to_str().unwrap(), "--json"]);
    let c = &c["comparison"];
    assert_eq!(c["bugs"], 3);
    assert_eq!(c["correct"]["only_b"], json!(["Cli-2"]));
    assert_eq!(c["plausible"]["only_b"], json!(["Cli-2", "Cli-3"]));
    assert_eq!(c["plausible"]["p_value"], 0.5);
    assert_eq!((c["validations"]["a_lower"].as_u64(), c["validations"]["b_lower"].as_u64()), (Some(0), Some(3)));
    let text = fixdex(&["eval", "compare", a.to_str().unwrap(), b.to_str().unwrap()], None);
    assert!(String::from_utf8_lossy(&text.stdout).contains("| correct | 1 | 0 | 1 | 1 |"));
    assert!(!String::from_utf8_lossy(&text.stderr).contains("same run folder"));
    // A run compared with itself (here by another spelling of its path) is warned about.
    let again = tmp.path().join(".").join("a");
    let same = fixdex(&["eval", "compare", a.to_str().unwrap(), again.to_str().unwrap()], None);
    assert!(same.status.success());
    assert!(String::from_utf8_lossy(&same.stderr).contains("are the same run folder: every bug ties"));

    let (s0, s1, all) = (tmp.path().join("s0"), tmp.path().join("s1"), tmp.path().join("all"));
    write_run(&s0, &["Cli-1", "Cli-3"], Some((0, 2)));
    write_run(&s1, &["Cli-2"], Some((1, 2)));
    write_bug(&s0, "Cli-1", Some(FIXED), Some("exact"), 3, 0.01);
    write_bug(&s1, "Cli-2", None, None, 100, 0.05);
    let m = ok_json(&[
        "eval",
        "merge",
        "--out",
        all.to_str().unwrap(),
        s1.to_str().unwrap(),
        s0.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(
        (m["bugs"].as_u64(), m["copied"].as_u64(), m["unfinished"].as_u64()),
        (Some(3), Some(2), Some(1)),
        "{m}"
    );
    let r = ok_json(&["eval", "report", all.to_str().unwrap(), "--json"]);
    assert_eq!(r["summary"]["total"], 2);
    // A shard of another run is refused, naming the setting.
    let other = tmp.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    let mut run = run_json(&["Cli-9"], Some((1, 2)));
    run["strategy"] = json!("reinfix");
    std::fs::write(other.join("run.json"), run.to_string()).unwrap();
    let o = fixdex(
        &[
            "eval",
            "merge",
            "--out",
            tmp.path().join("x").to_str().unwrap(),
            s0.to_str().unwrap(),
            other.to_str().unwrap(),
        ],
        None,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("strategy") && err.contains("reinfix"), "{err}");
    assert!(
        err.contains(other.to_str().unwrap()) && err.contains(s0.to_str().unwrap()) && !err.contains("resume"),
        "{err}"
    );
    // Shard 1 of 2 alone is not the whole run.
    let part = tmp.path().join("part");
    let o = fixdex(&["eval", "merge", "--out", part.to_str().unwrap(), s1.to_str().unwrap()], None);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("shard 0 of 2 is missing"), "{err}");
    let one = tmp.path().join("one");
    write_run(&one, &["Cli-1"], Some((0, 1)));
    let o = fixdex(&["eval", "merge", "--out", tmp.path().join("o").to_str().unwrap(), one.to_str().unwrap()], None);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("merged 1 shard into") && text.contains(": 1 bug, 0 with a result"), "{text}");
    assert!(text.contains("1 bug without a result"), "{text}");
}

#[test]
fn merge_refuses_an_output_another_process_holds() {
    let tmp = tempfile::tempdir().unwrap();
    let (s0, out) = (tmp.path().join("s0"), tmp.path().join("all"));
    write_run(&s0, &["Cli-1"], Some((0, 1)));
    write_bug(&s0, "Cli-1", Some(FIXED), Some("exact"), 3, 0.01);
    std::fs::create_dir_all(&out).unwrap();
    // This test process stands for another fixdex run: it holds the folder's lock file.
    let lock = std::fs::File::create(out.join(".lock")).unwrap();
    lock.lock().unwrap();
    let args = ["eval", "merge", "--out", out.to_str().unwrap(), s0.to_str().unwrap()];
    let o = fixdex(&args, None);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains(out.to_str().unwrap()) && err.contains("another fixdex run"), "{err}");
    assert!(!out.join("run.json").exists());
    drop(lock);
    let o = fixdex(&args, None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.join("run.json").is_file() && !out.join(".lock").exists());
}

#[test]
fn report_names_the_bugs_without_a_result() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    write_run(&run, &["Cli-1", "Cli-2", "Cli-3", "Cli-4"], None);
    write_bug(&run, "Cli-1", Some(FIXED), Some("exact"), 3, 0.01);
    write_bug(&run, "Cli-2", None, None, 100, 0.05);
    std::fs::write(run.join("bugs/Cli-2/result.json"), "{\"bug\": \"Cli-2\",").unwrap();
    let o = fixdex(&["eval", "report", run.to_str().unwrap(), "--no-regrade"], None);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("no result for 2 bugs of 4"), "{err}");
    assert!(err.contains("Cli-3, Cli-4"), "{err}");
    assert!(err.contains("bugs/Cli-2/result.json") && err.contains("EOF while parsing"), "{err}");
}

#[test]
fn compare_refuses_runs_with_no_bug_in_common_or_of_two_benchmarks() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b, q) = (tmp.path().join("a"), tmp.path().join("b"), tmp.path().join("q"));
    write_run(&a, &["Cli-1"], None);
    write_bug(&a, "Cli-1", Some(FIXED), Some("exact"), 3, 0.01);
    write_run(&b, &["Cli-2"], None);
    write_bug(&b, "Cli-2", Some(FIXED), Some("exact"), 3, 0.01);
    let o = fixdex(&["eval", "compare", a.to_str().unwrap(), b.to_str().unwrap()], None);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains(a.to_str().unwrap()) && err.contains(b.to_str().unwrap()) && err.contains("no bug"), "{err}");
    assert!(o.stdout.is_empty());
    std::fs::create_dir_all(&q).unwrap();
    let mut run = run_json(&["Cli-1"], None);
    run["benchmark"] = json!("quixbugs");
    std::fs::write(q.join("run.json"), run.to_string()).unwrap();
    write_bug(&q, "Cli-1", Some(FIXED), Some("exact"), 3, 0.01);
    let o = fixdex(&["eval", "compare", a.to_str().unwrap(), q.to_str().unwrap(), "--json"], None);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("defects4j") && err.contains("quixbugs") && err.contains(q.to_str().unwrap()), "{err}");
}

#[test]
fn report_without_regrading_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    write_run(&run, &["Cli-1"], None);
    write_bug(&run, "Cli-1", Some(FIXED), Some("needs_review"), 3, 0.01);
    let o = fixdex(&["eval", "report", run.to_str().unwrap(), "--no-regrade"], None);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && text.contains("not re-graded") && !text.contains("re-graded:"), "{text}");
    let j = ok_json(&["eval", "report", run.to_str().unwrap(), "--no-regrade", "--json"]);
    assert_eq!((j["regraded"].clone(), j["regraded_patches_changed"].clone()), (json!(false), Value::Null));
    let o = fixdex(&["eval", "report", run.to_str().unwrap()], None);
    assert!(String::from_utf8_lossy(&o.stdout).contains("re-graded: 1 patch tier changed"));
}

/// A folder a run holds (its lock) is reported as it stands: the bugs without a result are
/// said to be running, nothing is re-graded or written back; an `--out-dir` that is a file is
/// refused before anything is read.
#[test]
fn report_on_a_folder_in_use_covers_the_finished_bugs_and_writes_no_result() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    write_run(&run, &["Cli-1", "Cli-2"], None);
    write_bug(&run, "Cli-1", Some("class A { int f(int x) { return ((x + 1)) * 2; } }"), Some("needs_review"), 3, 0.0);
    let saved = std::fs::read_to_string(run.join("bugs/Cli-1/result.json")).unwrap();
    // Another process's lock, as a running `eval` holds it.
    let lock = engine::output::Lock::acquire(&run.canonicalize().unwrap().join("")).unwrap();
    let o = fixdex(&["eval", "report", run.to_str().unwrap(), "--json"], None);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("is in use") && err.contains("not re-graded") && err.contains("still going"), "{err}");
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((j["running"].clone(), j["regraded"].clone()), (json!(true), json!(false)), "{j}");
    assert_eq!(j["summary"]["plausible"], 1, "{j}");
    assert_eq!(std::fs::read_to_string(run.join("bugs/Cli-1/result.json")).unwrap(), saved);
    // The pages say which bugs have no result yet.
    let page = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(page.contains("no result yet for 1 of 2 bugs") && page.contains(": Cli-2"), "{page}");
    drop(lock);
    // The run ended: re-graded (an AST match the run saved as needs_review).
    let j = ok_json(&["eval", "report", run.to_str().unwrap(), "--json"]);
    assert_eq!((j["running"].clone(), j["regraded_patches_changed"].clone()), (json!(false), json!(1)), "{j}");
    // --out-dir naming a file.
    let file = tmp.path().join("a-file");
    std::fs::write(&file, "keep").unwrap();
    let o = fixdex(&["eval", "report", run.to_str().unwrap(), "--out-dir", file.to_str().unwrap()], None);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("not a folder") && err.contains(file.to_str().unwrap()), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "keep");
    // One that cannot be made (under a file) is refused before the re-grading writes.
    std::fs::write(run.join("bugs/Cli-1/result.json"), &saved).unwrap();
    let under = file.join("sub");
    let o = fixdex(&["eval", "report", run.to_str().unwrap(), "--out-dir", under.to_str().unwrap()], None);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("cannot be made"), "{err}");
    assert_eq!(std::fs::read_to_string(run.join("bugs/Cli-1/result.json")).unwrap(), saved, "re-graded and written");
}

#[test]
fn a_folder_that_is_not_a_run_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let o = fixdex(&["eval", "report", tmp.path().to_str().unwrap()], None);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("run.json") && err.contains("is this a run folder"), "{err}");
    std::fs::write(tmp.path().join("run.json"), "{\"benchmark\": 3}").unwrap();
    let o = fixdex(&["eval", "report", tmp.path().to_str().unwrap()], None);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("run.json") && err.contains("line 1"), "{err}");
    // A file given as the run folder is named as such, not as an `--out-dir`.
    let file = tmp.path().join("a-file");
    std::fs::write(&file, "keep").unwrap();
    let o = fixdex(&["eval", "report", file.to_str().unwrap()], None);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("not a folder: give a run folder") && !err.contains("--out-dir"),
        "{err}"
    );
}

fn which(name: &str) -> Option<std::path::PathBuf> {
    std::env::var_os("PATH")?.to_str()?.split(':').map(|d| Path::new(d).join(name)).find(|p| p.is_file())
}
