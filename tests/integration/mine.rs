//! `fixdex mine` on git histories built here with the `git` command line: commit selection
//! and skip reasons, method and hunk pairs, granularity, bundles, shallow clones, dates and
//! branches, bad inputs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::{Scratch, fixdex, stderr, stdout_json};

/// A git repository built commit by commit, with fixed names and dates.
struct Fixture {
    dir: PathBuf,
}

/// `2020-01-DDT12:00:00+00:00`.
fn date(day: u32) -> String {
    format!("2020-01-{day:02}T12:00:00+00:00")
}

/// Runs `git` in `dir` with a fixed identity and `day`'s date, no user configuration;
/// asserts success and returns stdout, trimmed.
fn git_in(dir: &Path, day: u32, args: &[&str]) -> String {
    let o = Command::new("git")
        .current_dir(dir)
        .args(["-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", "-c", "core.autocrlf=false"])
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Ann Author")
        .env("GIT_AUTHOR_EMAIL", "ann@example.com")
        .env("GIT_COMMITTER_NAME", "Carl Committer")
        .env("GIT_COMMITTER_EMAIL", "carl@example.com")
        .env("GIT_AUTHOR_DATE", date(day))
        .env("GIT_COMMITTER_DATE", date(day))
        .output()
        .unwrap();
    assert!(o.status.success(), "git {args:?} failed: {}", stderr(&o));
    String::from_utf8(o.stdout).unwrap().trim().to_string()
}

impl Fixture {
    /// `git init` of `root/name`.
    fn new(root: &Path, name: &str) -> Fixture {
        let dir = root.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        git_in(&dir, 1, &["init", "-q"]);
        Fixture { dir }
    }

    fn path(&self) -> &str {
        self.dir.to_str().unwrap()
    }

    fn write(&self, path: &str, text: impl AsRef<[u8]>) {
        let p = self.dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn git(&self, day: u32, args: &[&str]) -> String {
        git_in(&self.dir, day, args)
    }

    /// Commits every change of the work tree on `day`; the new commit's SHA.
    fn commit(&self, msg: &str, day: u32) -> String {
        self.git(day, &["add", "-A"]);
        self.git(day, &["commit", "-q", "-m", msg]);
        self.git(day, &["rev-parse", "HEAD"])
    }
}

/// Runs `fixdex mine` (no model needed).
fn mine(args: &[&str]) -> Output {
    let mut all = vec!["mine"];
    all.extend_from_slice(args);
    fixdex(&all, None)
}

/// `fixdex mine REPO -o OUT --json EXTRA...`: the stats and the rows; asserts success.
fn mine_json(repo: &str, out: &Path, extra: &[&str]) -> (Value, Vec<Value>) {
    let mut args = vec![repo, "-o", out.to_str().unwrap(), "--json"];
    args.extend_from_slice(extra);
    let stats = stdout_json(&mine(&args));
    (stats, rows(out))
}

fn rows(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn ids(rows: &[Value]) -> Vec<String> {
    rows.iter().map(|r| r["id"].as_str().unwrap().to_string()).collect()
}

/// A stats map (`skipped_commits`, ...) as sorted (reason, count) pairs.
fn counts(stats: &Value, map: &str) -> Vec<(String, u64)> {
    stats[map].as_object().unwrap().iter().map(|(k, v)| (k.clone(), v.as_u64().unwrap())).collect()
}

fn pairs(list: &[(&str, u64)]) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = list.iter().map(|(k, n)| (k.to_string(), *n)).collect();
    v.sort();
    v
}

const FOO: &str = "package com.ex;

public class Foo {
    public int sum(int[] xs) {
        int total = 0;
        for (int i = 0; i < xs.length - 1; i++) {
            total += xs[i];
        }
        return total;
    }

    public int max(int a, int b) {
        return a > b ? a : b;
    }

    public String name() {
        return \"foo\";
    }
}
";

const FOO_TEST: &str = "package com.ex;

public class FooTest {
    void testSum() {
        assert new Foo().sum(new int[] {1, 2}) == 3;
    }
}
";

fn util(n: u32, value: u32) -> String {
    format!("package com.ex;\n\npublic class Util{n} {{\n    int v() {{\n        return {value};\n    }}\n}}\n")
}

/// The SHAs of the Java fixture's commits, by step of the history.
#[allow(dead_code)]
struct JavaShas {
    initial: String,
    off_by_one: String,
    reformat: String,
    layout_fix: String,
    feature: String,
    revert: String,
    side: String,
    merge: String,
    utils: String,
    rename: String,
    encodings: String,
}

/// The Java history, one commit per skip reason (days 1 to 11, one commit a day):
///
/// 1. initial (root_commit); 2. `Fix off-by-one in sum (ABC-12)`, the one pair (its test
///    file: test_file); 3. `Reformat code, fix indentation` (housekeeping); 4. `Fix bug in
///    max` that only re-indents `max` (layout_or_comment_only, no_method_changed); 5. `Add
///    feature X` (no_fix_evidence); 6. its `git revert` (revert); 7. on branch `side`: `Update
///    notes` (no_fix_evidence); 8. its `--no-ff` merge into main, whose message says fix
///    (merge); 9. a fix of 7 `UtilN.java` files (too_many_files); 10. a fix that renames a
///    file only (rename_only, no_method_changed); 11. a fix of a binary `.java` file, a
///    Latin-1 one and one with a syntax error (binary, non_utf8, parse_error,
///    no_method_changed).
fn java_fixture(root: &Path) -> (Fixture, JavaShas) {
    let f = Fixture::new(root, "javafix");
    f.write("LICENSE", "\n                                 Apache License\n                           Version 2.0, January 2004\n                        http://www.apache.org/licenses/\n");
    f.write("src/main/java/com/ex/Foo.java", FOO);
    f.write("src/test/java/com/ex/FooTest.java", FOO_TEST);
    for n in 1..=7 {
        f.write(&format!("src/main/java/com/ex/Util{n}.java"), util(n, n));
    }
    f.write(
        "src/main/java/com/ex/Old.java",
        "package com.ex;\n\nclass Old {\n    int f() {\n        return 1;\n    }\n}\n",
    );
    f.write("src/main/java/com/ex/Blob.java", b"class Blob {}\n\0\0\x01\x02\x03".as_slice());
    f.write("src/main/java/com/ex/Latin.java", "class Latin {\n    String s() {\n        return \"cafe\";\n    }\n}\n");
    f.write("src/main/java/com/ex/Broken.java", "class Broken {\n    int f() {\n        return 1;\n    }\n}\n");
    f.write("NOTES.txt", "notes\n");
    let initial = f.commit("Initial import", 1);

    f.write("src/main/java/com/ex/Foo.java", FOO.replace("xs.length - 1", "xs.length"));
    f.write("src/test/java/com/ex/FooTest.java", FOO_TEST.replace("{1, 2}) == 3", "{1, 2, 3}) == 6"));
    let off_by_one = f.commit("Fix off-by-one in sum (ABC-12)", 2);

    let fixed = FOO.replace("xs.length - 1", "xs.length");
    f.write("src/main/java/com/ex/Foo.java", fixed.replace("return \"foo\";", "  return \"foo\";"));
    let reformat = f.commit("Reformat code, fix indentation", 3);

    let reformatted = std::fs::read_to_string(f.dir.join("src/main/java/com/ex/Foo.java")).unwrap();
    let relaid = reformatted
        .replace("        return a > b ? a : b;\n", "        return a > b\n            ? a\n            : b;\n");
    assert_ne!(reformatted, relaid);
    f.write("src/main/java/com/ex/Foo.java", relaid);
    let layout_fix = f.commit("Fix bug in max", 4);

    f.write(
        "src/main/java/com/ex/Feature.java",
        "package com.ex;\n\nclass Feature {\n    int x() {\n        return 1;\n    }\n}\n",
    );
    let feature = f.commit("Add feature X", 5);
    f.git(6, &["revert", "--no-edit", "HEAD"]);
    let revert = f.git(6, &["rev-parse", "HEAD"]);

    f.git(7, &["checkout", "-q", "-b", "side"]);
    f.write("NOTES.txt", "notes\nmore notes\n");
    let side = f.commit("Update notes", 7);
    f.git(8, &["checkout", "-q", "main"]);
    f.git(8, &["merge", "-q", "--no-ff", "side", "-m", "Merge branch 'side': fix the notes"]);
    let merge = f.git(8, &["rev-parse", "HEAD"]);

    for n in 1..=7 {
        f.write(&format!("src/main/java/com/ex/Util{n}.java"), util(n, n * 10));
    }
    let utils = f.commit("Fix values in utils (ABC-13)", 9);

    f.git(10, &["mv", "src/main/java/com/ex/Old.java", "src/main/java/com/ex/Renamed.java"]);
    let rename = f.commit("Fix the file name (ABC-14)", 10);

    f.write("src/main/java/com/ex/Blob.java", b"class Blob {}\n\0\0\x01\x02\x04".as_slice());
    f.write(
        "src/main/java/com/ex/Latin.java",
        b"class Latin {\n    String s() {\n        return \"caf\xe9\";\n    }\n}\n".as_slice(),
    );
    f.write("src/main/java/com/ex/Broken.java", "class Broken {\n    int f( {\n        return 2;\n    }\n}\n");
    let encodings = f.commit("Fix encoding bugs (ABC-15)", 11);

    let shas =
        JavaShas { initial, off_by_one, reformat, layout_fix, feature, revert, side, merge, utils, rename, encodings };
    (f, shas)
}

#[test]
fn mine_java_history_selects_fixes_and_counts_every_skip() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, shas) = java_fixture(tmp.path());
    let out = tmp.path().join("out.jsonl");
    let (stats, got) = mine_json(repo.path(), &out, &[]);

    assert_eq!(stats["commits_scanned"], 11, "{stats}");
    assert_eq!(stats["commits_selected"], 4, "{stats}");
    assert_eq!(stats["commits_with_pairs"], 1, "{stats}");
    assert_eq!(stats["pairs"], 1, "{stats}");
    assert_eq!(stats["bundle"], false);
    assert_eq!(stats["shallow"], false);
    assert_eq!(
        counts(&stats, "skipped_commits"),
        pairs(&[
            ("root_commit", 1),
            ("housekeeping", 1),
            ("no_method_changed", 3),
            ("no_fix_evidence", 2),
            ("revert", 1),
            ("merge", 1),
            ("too_many_files", 1),
        ]),
        "{stats}"
    );
    assert_eq!(
        counts(&stats, "skipped_files"),
        pairs(&[("test_file", 1), ("rename_only", 1), ("binary", 1), ("non_utf8", 1), ("parse_error", 1)]),
        "{stats}"
    );
    assert_eq!(counts(&stats, "skipped_methods"), pairs(&[("layout_or_comment_only", 1)]), "{stats}");

    assert_eq!(got.len(), 1, "{got:#?}");
    let r = &got[0];
    let short = &shas.off_by_one[..12];
    assert_eq!(r["id"], format!("javafix:{short}:src/main/java/com/ex/Foo.java:Foo.sum(int[])"));
    assert_eq!(r["source"], "mined:javafix");
    assert_eq!(r["project"], "javafix");
    assert_eq!(r["language"], "java");
    assert_eq!(r["license"], "Apache-2.0");
    assert_eq!(r["description"], "Fix off-by-one in sum (ABC-12)");
    let (buggy, fixed) = (r["buggy_code"].as_str().unwrap(), r["fixed_code"].as_str().unwrap());
    assert!(buggy.starts_with("    public int sum(int[] xs) {") && buggy.ends_with("return total;\n    }"), "{buggy}");
    assert!(buggy.contains("i < xs.length - 1;") && !buggy.contains("max"), "{buggy}");
    assert!(fixed.contains("i < xs.length;") && !fixed.contains("length - 1"), "{fixed}");
    let diff = r["diff"].as_str().unwrap();
    assert!(
        diff.contains("--- a/src/main/java/com/ex/Foo.java") && diff.contains("+++ b/src/main/java/com/ex/Foo.java")
    );
    assert!(diff.lines().any(|l| l.starts_with('-') && l.contains("xs.length - 1")), "{diff}");
    assert!(diff.lines().any(|l| l.starts_with('+') && l.contains("i < xs.length;")), "{diff}");
    let m = &r["meta"];
    assert_eq!(m["commit"], shas.off_by_one);
    assert_eq!(m["parent"], shas.initial);
    assert_eq!(m["path"], "src/main/java/com/ex/Foo.java");
    assert_eq!(m["function"], "Foo.sum(int[])");
    assert_eq!(m["granularity"], "function");
    assert_eq!(m["functions_changed_in_commit"], 1);
    assert!(m["author_date"].as_str().unwrap().starts_with("2020-01-02T12:00:00"), "{m}");
    assert_eq!(m["evidence"]["issues"], serde_json::json!(["ABC-12"]));
    assert_eq!(m["evidence"]["keywords"], serde_json::json!(["fix"]));

    // --max-files 10: the seven-file fix is selected, one pair per Util method, in path order.
    let (stats, got) = mine_json(repo.path(), &out, &["--max-files", "10"]);
    assert_eq!(stats["commits_selected"], 5, "{stats}");
    assert_eq!(stats["commits_with_pairs"], 2, "{stats}");
    assert_eq!(stats["pairs"], 8, "{stats}");
    assert!(stats["skipped_commits"].get("too_many_files").is_none(), "{stats}");
    let short = &shas.utils[..12];
    let want: Vec<String> =
        (1..=7).map(|n| format!("javafix:{short}:src/main/java/com/ex/Util{n}.java:Util{n}.v()")).collect();
    // Newest commit first: the utils fix (day 9) before the off-by-one fix (day 2).
    assert_eq!(ids(&got)[..7], want[..], "{:?}", ids(&got));
    assert_eq!(got[7]["meta"]["commit"], shas.off_by_one);
    assert!(got[..7].iter().all(|r| r["meta"]["functions_changed_in_commit"] == 7));
    assert_eq!(got[2]["buggy_code"], "    int v() {\n        return 3;\n    }");
    assert_eq!(got[2]["fixed_code"], "    int v() {\n        return 30;\n    }");

    // --max-methods 6: that commit is now a refactoring.
    let (stats, got) = mine_json(repo.path(), &out, &["--max-files", "10", "--max-methods", "6"]);
    assert_eq!(stats["skipped_commits"]["too_many_methods"], 1, "{stats}");
    assert_eq!(got.len(), 1);

    // Without --json: a summary on stderr, nothing on stdout.
    let o = mine(&[repo.path(), "-o", out.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    let err = stderr(&o);
    assert!(err.contains("11 commits scanned") && err.contains("1 pairs") && err.contains("wrote"), "{err}");
    assert!(!err.contains("shallow"), "{err}");
}

#[test]
fn mine_revert_merge_and_housekeeping_messages_are_what_the_fixture_meant() {
    // Guards the fixture itself: the messages git wrote are the ones the rules see.
    let tmp = tempfile::tempdir().unwrap();
    let (repo, shas) = java_fixture(tmp.path());
    let subject = |sha: &str| repo.git(1, &["log", "-1", "--format=%s", sha]);
    assert_eq!(subject(&shas.revert), "Revert \"Add feature X\"");
    assert_eq!(repo.git(1, &["rev-list", "--parents", "-n", "1", &shas.merge]).split(' ').count(), 3);
    assert!(subject(&shas.reformat).starts_with("Reformat"));
    assert_eq!(subject(&shas.feature), "Add feature X");
    assert!(!shas.layout_fix.is_empty() && !shas.side.is_empty() && !shas.rename.is_empty());
    assert!(!shas.encodings.is_empty());
}

const PY: &str = "LIMIT = 10


class C:
    def f(self, x):
        def helper(y):
            return y + 1
        return helper(x)


def g(x):
    def inner(y):
        return y * 2
    return inner(x) + LIMIT
";

/// Python: 1. initial; 2. a fix in `g`'s nested `inner`; 3. a fix in `C.f`'s nested
/// `helper`; 4. a fix of the module constant only; 5. a fix of the constant and of `g`.
fn python_fixture(root: &Path) -> (Fixture, Vec<String>) {
    let f = Fixture::new(root, "pyfix");
    f.write("LICENSE", "MIT License\n\nPermission is hereby granted, free of charge, to any person\n");
    f.write("pkg/mod.py", PY);
    f.write("tests/test_mod.py", "def test_g():\n    assert True\n");
    let mut shas = vec![f.commit("Initial import", 1)];
    let v2 = PY.replace("y * 2", "y * 3");
    f.write("pkg/mod.py", &v2);
    shas.push(f.commit("Fix inner doubling (#3)", 2));
    let v3 = v2.replace("y + 1", "y - 1");
    f.write("pkg/mod.py", &v3);
    shas.push(f.commit("Fix helper bug", 3));
    let v4 = v3.replace("LIMIT = 10", "LIMIT = 20");
    f.write("pkg/mod.py", &v4);
    shas.push(f.commit("Fix the limit bug", 4));
    let v5 = v4.replace("LIMIT = 20", "LIMIT = 30").replace("inner(x) + LIMIT", "inner(x) - LIMIT");
    f.write("pkg/mod.py", &v5);
    shas.push(f.commit("Fix both bugs", 5));
    (f, shas)
}

#[test]
fn mine_python_nested_functions_hunks_and_commit_granularity() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, shas) = python_fixture(tmp.path());
    let out = tmp.path().join("py.jsonl");
    let (stats, got) = mine_json(repo.path(), &out, &[]);
    let short = |i: usize| shas[i][..12].to_string();
    let path = "pkg/mod.py";
    assert_eq!(
        ids(&got),
        [
            format!("pyfix:{}:{path}:g", short(4)),
            format!("pyfix:{}:{path}:<hunks>", short(4)),
            format!("pyfix:{}:{path}:<hunks>", short(3)),
            format!("pyfix:{}:{path}:C.f", short(2)),
            format!("pyfix:{}:{path}:g", short(1)),
        ],
        "{stats}"
    );
    assert_eq!(stats["commits_scanned"], 5);
    assert_eq!(stats["commits_selected"], 4);
    assert_eq!(stats["commits_with_pairs"], 4);
    assert_eq!(stats["pairs"], 5);
    assert_eq!(counts(&stats, "skipped_commits"), pairs(&[("root_commit", 1)]));
    assert!(got.iter().all(|r| r["language"] == "python" && r["license"] == "MIT"));

    // The nested function's fix is the enclosing function's pair, whole.
    let g = &got[4];
    assert_eq!(g["meta"]["function"], "g");
    assert_eq!(g["meta"]["granularity"], "function");
    assert_eq!(g["buggy_code"], "def g(x):\n    def inner(y):\n        return y * 2\n    return inner(x) + LIMIT");
    assert!(g["fixed_code"].as_str().unwrap().contains("y * 3"));
    assert_eq!(g["meta"]["evidence"]["issues"], serde_json::json!(["#3"]));
    let cf = &got[3];
    assert_eq!(cf["meta"]["function"], "C.f");
    assert!(cf["buggy_code"].as_str().unwrap().starts_with("    def f(self, x):\n        def helper(y):"));
    assert!(cf["fixed_code"].as_str().unwrap().contains("return y - 1"));

    // The constant: a hunk pair without a function.
    let h = &got[2];
    assert_eq!(h["meta"]["granularity"], "hunk");
    assert!(h["meta"].get("function").is_none(), "{h}");
    assert!(h["buggy_code"].as_str().unwrap().contains("LIMIT = 10"), "{h}");
    assert!(h["fixed_code"].as_str().unwrap().contains("LIMIT = 20"), "{h}");
    assert!(!h["buggy_code"].as_str().unwrap().contains("inner(x)"), "the method's lines are not a hunk: {h}");
    // The commit changed one method (`g`) and a constant: the hunk row is not a method.
    assert!(got[..2].iter().all(|r| r["meta"]["functions_changed_in_commit"] == 1));

    // --no-hunks: the constant-only fix has no pair left.
    let (stats, got) = mine_json(repo.path(), &out, &["--no-hunks"]);
    assert_eq!(
        ids(&got),
        [
            format!("pyfix:{}:{path}:g", short(4)),
            format!("pyfix:{}:{path}:C.f", short(2)),
            format!("pyfix:{}:{path}:g", short(1)),
        ]
    );
    assert!(got.iter().all(|r| r["meta"]["granularity"] == "function"));
    assert_eq!(stats["commits_with_pairs"], 3);
    assert_eq!(stats["skipped_commits"]["no_method_changed"], 1, "{stats}");

    // --granularity commit: one row per commit, its methods listed.
    let (stats, got) = mine_json(repo.path(), &out, &["--granularity", "commit"]);
    assert_eq!(ids(&got), (1..=4).rev().map(|i| format!("pyfix:{}", short(i))).collect::<Vec<_>>());
    assert_eq!(stats["pairs"], 4);
    let both = &got[0];
    assert_eq!(both["meta"]["granularity"], "commit");
    assert_eq!(both["meta"]["functions"], serde_json::json!([format!("{path}:g"), format!("{path}:<hunks>")]));
    assert_eq!(both["meta"]["paths"], serde_json::json!([path]));
    assert_eq!(both["meta"]["commit"], shas[4]);
    let buggy = both["buggy_code"].as_str().unwrap();
    assert!(buggy.contains("inner(x) + LIMIT") && buggy.contains("LIMIT = 20"), "{buggy}");
    assert_eq!(got[3]["meta"]["functions"], serde_json::json!([format!("{path}:g")]));
    assert_eq!(got[3]["buggy_code"], g["buggy_code"]);
}

/// `fixdex mine` with extra environment variables.
fn mine_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_fixdex"));
    c.arg("mine").args(args).env_remove("RUST_LOG").env_remove("RAYON_NUM_THREADS");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

#[test]
fn mine_output_is_deterministic_whatever_the_threads() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, _) = java_fixture(tmp.path());
    let outs: Vec<PathBuf> = (0..3).map(|i| tmp.path().join(format!("o{i}.jsonl"))).collect();
    let envs: [&[(&str, &str)]; 3] = [&[], &[], &[("RAYON_NUM_THREADS", "1")]];
    for (out, env) in outs.iter().zip(envs) {
        let o = mine_env(&[repo.path(), "-o", out.to_str().unwrap(), "--max-files", "10", "-q"], env);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let bytes: Vec<Vec<u8>> = outs.iter().map(|p| std::fs::read(p).unwrap()).collect();
    assert_eq!(rows(&outs[0]).len(), 8);
    assert!(bytes[0] == bytes[1], "two runs differ");
    assert!(bytes[0] == bytes[2], "one thread differs from the default");
}

/// The rows without `source` (which names the repository or bundle file).
fn without_source(rows: Vec<Value>) -> Vec<Value> {
    rows.into_iter()
        .map(|mut r| {
            r.as_object_mut().unwrap().remove("source");
            r
        })
        .collect()
}

#[test]
fn mine_bundle_gives_the_repository_rows() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, _) = java_fixture(tmp.path());
    let bundle = tmp.path().join("x.bundle");
    repo.git(12, &["bundle", "create", "-q", bundle.to_str().unwrap(), "--all"]);
    let args = ["--max-files", "10", "--project", "P"];
    let (repo_stats, from_repo) = mine_json(repo.path(), &tmp.path().join("r.jsonl"), &args);
    let (bundle_stats, from_bundle) = mine_json(bundle.to_str().unwrap(), &tmp.path().join("b.jsonl"), &args);
    assert_eq!(bundle_stats["bundle"], true);
    assert_eq!(repo_stats["bundle"], false);
    assert_eq!(from_bundle.len(), 8);
    assert!(from_bundle.iter().all(|r| r["source"] == "mined:x" && r["project"] == "P"));
    assert!(from_repo.iter().all(|r| r["source"] == "mined:javafix"));
    assert!(ids(&from_bundle).iter().all(|id| id.starts_with("P:")));
    assert_eq!(without_source(from_bundle), without_source(from_repo));
    for key in ["commits_scanned", "commits_selected", "pairs", "skipped_commits", "skipped_files", "skipped_methods"] {
        assert_eq!(bundle_stats[key], repo_stats[key], "{key}");
    }

    // A bare clone and the `.git` folder: the same rows, named after the repository.
    let bare = tmp.path().join("javafix.git");
    git_in(tmp.path(), 12, &["clone", "-q", "--bare", repo.path(), bare.to_str().unwrap()]);
    for git_dir in [bare, repo.dir.join(".git")] {
        let (_, got) = mine_json(git_dir.to_str().unwrap(), &tmp.path().join("g.jsonl"), &["--max-files", "10"]);
        assert!(got.iter().all(|r| r["source"] == "mined:javafix" && r["project"] == "javafix"), "{git_dir:?}");
        assert_eq!(without_source(got).len(), 8);
    }
}

#[test]
fn mine_empty_repository_writes_an_empty_corpus() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Fixture::new(tmp.path(), "empty");
    let out = tmp.path().join("e.jsonl");
    let (stats, got) = mine_json(repo.path(), &out, &[]);
    assert_eq!((stats["commits_scanned"].as_u64(), stats["pairs"].as_u64()), (Some(0), Some(0)));
    assert!(got.is_empty() && out.exists());
}

#[test]
fn mine_commit_granularity_splits_a_commit_by_language() {
    let tmp = tempfile::tempdir().unwrap();
    let f = Fixture::new(tmp.path(), "mixed");
    let java = |v: u32| format!("class A {{\n    int f() {{\n        return {v};\n    }}\n}}\n");
    let py = |v: u32| format!("def g():\n    return {v}\n");
    f.write("A.java", java(1));
    f.write("b.py", py(1));
    f.commit("Initial import", 1);
    f.write("A.java", java(2));
    f.write("b.py", py(2));
    let sha = f.commit("Fix both sides (GH-7)", 2);
    let out = tmp.path().join("m.jsonl");
    let (_, got) = mine_json(f.path(), &out, &["--granularity", "commit"]);
    let short = &sha[..12];
    assert_eq!(ids(&got), [format!("mixed:{short}:java"), format!("mixed:{short}:python")]);
    assert_eq!(got[0]["meta"]["functions"], serde_json::json!(["A.java:A.f()"]));
    assert_eq!(got[1]["meta"]["functions"], serde_json::json!(["b.py:g"]));
    assert!(got.iter().all(|r| r["meta"]["functions_changed_in_commit"] == 2 && r["license"] == "unknown"));
    assert_eq!(got[0]["meta"]["evidence"]["issues"], serde_json::json!(["GH-7"]));
    let (_, got) = mine_json(f.path(), &out, &[]);
    assert_eq!(ids(&got), [format!("mixed:{short}:A.java:A.f()"), format!("mixed:{short}:b.py:g")]);
}

#[test]
fn mine_shallow_clone_skips_its_boundary_and_warns() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, shas) = java_fixture(tmp.path());
    let url = format!("file://{}", repo.path());
    git_in(tmp.path(), 12, &["clone", "-q", "--depth", "2", &url, "shallow"]);
    let clone = tmp.path().join("shallow");
    let out = tmp.path().join("s.jsonl");
    let (stats, got) = mine_json(clone.to_str().unwrap(), &out, &[]);
    assert_eq!(stats["shallow"], true);
    assert_eq!(stats["commits_scanned"], 2, "{stats}");
    assert!(stats["skipped_commits"]["shallow_boundary"].as_u64().unwrap() >= 1, "{stats}");
    assert!(stats["skipped_commits"].get("root_commit").is_none(), "{stats}");
    // The newest commit (the encodings fix) has its parent in the clone.
    assert_eq!(stats["commits_selected"], 1, "{stats}");
    assert!(got.is_empty());
    let _ = shas;

    let o = mine(&[clone.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("shallow clone") && err.contains(clone.to_str().unwrap()), "{err}");
}

/// Mining `input` fails with exit 1 and a message naming it and containing `what`; the
/// output is neither created nor, when it exists, changed.
fn assert_refused(tmp: &Path, input: &Path, what: &str) {
    for existing in [false, true] {
        let out = tmp.join("refused.jsonl");
        let _ = std::fs::remove_file(&out);
        if existing {
            std::fs::write(&out, r#"{"keep": 1}"#).unwrap();
        }
        let o = mine(&[input.to_str().unwrap(), "-o", out.to_str().unwrap(), "--json"]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{input:?}: {err}");
        assert!(err.contains(input.to_str().unwrap()) && err.contains(what), "{input:?}: want {what:?}: {err}");
        // `--json`: the error, as one object on stdout, and nothing else.
        let answer: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!((answer["ok"].as_bool(), answer["exit"].as_u64()), (Some(false), Some(1)), "{answer}");
        assert!(answer["error"].as_str().unwrap().contains(what), "{answer}");
        if existing {
            assert_eq!(std::fs::read_to_string(&out).unwrap(), r#"{"keep": 1}"#);
        } else {
            assert!(!out.exists(), "{input:?}: the output was created");
        }
        let leftovers: Vec<_> = std::fs::read_dir(tmp)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".tmp-"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }
}

#[test]
fn mine_refuses_what_is_not_a_whole_history() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, _) = java_fixture(tmp.path());
    let work = tmp.path().join("work");
    std::fs::create_dir(&work).unwrap();

    assert_refused(&work, &work.join("missing"), "no such file or folder");
    let plain = work.join("plain");
    std::fs::create_dir(&plain).unwrap();
    std::fs::write(plain.join("a.java"), "class A {}").unwrap();
    assert_refused(&work, &plain, "not a git repository or bundle");
    // A folder inside a work tree is not its repository (no search upwards).
    assert_refused(&work, &repo.dir.join("src"), "not a git repository or bundle");
    let random = work.join("random.bundle");
    std::fs::write(&random, (0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect::<Vec<_>>())
        .unwrap();
    assert_refused(&work, &random, "not a git repository or bundle");

    let whole = work.join("whole.bundle");
    repo.git(12, &["bundle", "create", "-q", whole.to_str().unwrap(), "--all"]);
    let bytes = std::fs::read(&whole).unwrap();
    let truncated = work.join("truncated.bundle");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    assert_refused(&work, &truncated, "damaged pack");

    let part = work.join("part.bundle");
    repo.git(12, &["bundle", "create", "-q", part.to_str().unwrap(), "HEAD~1..HEAD"]);
    assert_refused(&work, &part, "prerequisites");

    // Several inputs, one bad: nothing is written.
    let out = work.join("two.jsonl");
    let o = mine(&[repo.path(), plain.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(!out.exists());
}

#[test]
fn mine_dates_and_branches_restrict_the_walk() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, shas) = java_fixture(tmp.path());
    let out = tmp.path().join("d.jsonl");

    // --since is inclusive, --until exclusive: only the off-by-one fix (day 2).
    let (stats, got) = mine_json(repo.path(), &out, &["--since", "2020-01-02", "--until", "2020-01-03"]);
    assert_eq!(stats["commits_scanned"], 1, "{stats}");
    assert_eq!(got.len(), 1);
    assert_eq!(got[0]["meta"]["commit"], shas.off_by_one);
    let (stats, _) =
        mine_json(repo.path(), &out, &["--since", "2020-01-02T12:00:00Z", "--until", "2020-01-04T12:00:00Z"]);
    assert_eq!(stats["commits_scanned"], 2, "{stats}");
    // A time without offset is UTC, not the day's midnight.
    let (stats, _) = mine_json(repo.path(), &out, &["--since", "2020-01-02T13:00:00", "--until", "2020-01-04T12:00"]);
    assert_eq!(stats["commits_scanned"], 1, "{stats}");
    let (stats, got) = mine_json(repo.path(), &out, &["--since", "2020-01-03"]);
    assert_eq!(stats["commits_scanned"], 9, "{stats}");
    assert!(got.is_empty());
    let (stats, got) = mine_json(repo.path(), &out, &["--until", "2020-01-02T12:00:00+00:00"]);
    assert_eq!(stats["commits_scanned"], 1, "{stats}");
    assert_eq!(counts(&stats, "skipped_commits"), pairs(&[("root_commit", 1)]));
    assert!(got.is_empty());

    // --max-commits: the newest N of the walk within the dates (a new user's request).
    let (stats, _) = mine_json(repo.path(), &out, &["--since", "2020-01-03", "--max-commits", "4"]);
    assert_eq!(stats["commits_scanned"], 4, "{stats}");
    let (stats, got) = mine_json(repo.path(), &out, &["--until", "2020-01-03", "--max-commits", "1"]);
    assert_eq!(stats["commits_scanned"], 1, "{stats}");
    assert_eq!(got.len(), 1, "the newest before day 3 is the off-by-one fix");
    assert_eq!(got[0]["meta"]["commit"], shas.off_by_one);
    let o = mine(&[repo.path(), "-o", out.to_str().unwrap(), "--max-commits", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));

    // --branch side: days 1 to 7 only (no merge, nothing after it).
    let (stats, got) = mine_json(repo.path(), &out, &["--branch", "side"]);
    assert_eq!(stats["commits_scanned"], 7, "{stats}");
    assert!(stats["skipped_commits"].get("merge").is_none(), "{stats}");
    assert_eq!(ids(&got).len(), 1);
    // --branch by SHA, twice the same commit: walked once.
    let (stats, _) = mine_json(repo.path(), &out, &["--branch", &shas.layout_fix, "--branch", &shas.layout_fix]);
    assert_eq!(stats["commits_scanned"], 4, "{stats}");

    for (flag, value) in [("--since", "yesterday"), ("--until", "2020-13-01")] {
        std::fs::write(&out, r#"{"keep": 1}"#).unwrap();
        let o = mine(&[repo.path(), "-o", out.to_str().unwrap(), flag, value]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "a malformed date is a usage error: {err}");
        assert!(err.contains(flag) && err.contains(value), "{err}");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), r#"{"keep": 1}"#);
    }
    let o = mine(&[repo.path(), "-o", out.to_str().unwrap(), "--branch", "no-such-branch"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("--branch no-such-branch"), "{err}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), r#"{"keep": 1}"#);
}

#[test]
fn mine_project_with_two_repositories_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (java, _) = java_fixture(tmp.path());
    let (py, _) = python_fixture(tmp.path());
    let out = tmp.path().join("two.jsonl");
    let o = mine(&[java.path(), py.path(), "-o", out.to_str().unwrap(), "--project", "P"]);
    let err = stderr(&o);
    assert!(!o.status.success(), "{err}");
    assert!(err.contains("--project"), "{err}");
    assert!(!out.exists());

    // Without it: both, each under its own name; --json gives an array of stats.
    let o = mine(&[java.path(), py.path(), "-o", out.to_str().unwrap(), "--json"]);
    let stats = stdout_json(&o);
    let stats = stats.as_array().unwrap();
    assert_eq!(stats.len(), 2);
    assert_eq!((stats[0]["pairs"].as_u64(), stats[1]["pairs"].as_u64()), (Some(1), Some(5)));
    let got = rows(&out);
    let projects: Vec<&str> = got.iter().map(|r| r["project"].as_str().unwrap()).collect();
    assert_eq!(projects, ["javafix", "pyfix", "pyfix", "pyfix", "pyfix", "pyfix"]);
}

#[test]
fn mine_output_indexes_without_skipped_rows() {
    let tmp = tempfile::tempdir().unwrap();
    let (java, _) = java_fixture(tmp.path());
    let (py, _) = python_fixture(tmp.path());
    let out = tmp.path().join("both.jsonl");
    let o = mine(&[java.path(), py.path(), "-o", out.to_str().unwrap(), "--max-files", "10", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(rows(&out).len(), 13);
    let s = Scratch::new();
    let stats = s.index(&out, &s.path("m.fdx"), &[]);
    assert_eq!(stats["indexed"], 13, "{stats}");
}

#[test]
fn mine_cherry_picked_fix_is_one_pair_and_features_are_skipped() {
    let tmp = tempfile::tempdir().unwrap();
    let f = Fixture::new(tmp.path(), "picked");
    let java = |v: &str| format!("class A {{\n    int f(int x) {{\n        return x {v} 1;\n    }}\n}}\n");
    f.write("A.java", java("+"));
    f.write("B.java", "class B {\n    int g() {\n        return 0;\n    }\n}\n");
    f.commit("Initial import", 1);
    f.git(2, &["checkout", "-q", "-b", "release"]);
    f.git(2, &["checkout", "-q", "main"]);
    f.write("A.java", java("-"));
    let original = f.commit("Fix the sign in f (ABC-1)", 3);
    f.git(4, &["checkout", "-q", "release"]);
    f.git(4, &["cherry-pick", "-x", &original]);
    let picked = f.git(4, &["rev-parse", "HEAD"]);
    assert_ne!(picked, original);
    f.git(5, &["checkout", "-q", "main"]);
    f.write("B.java", "class B {\n    int g() {\n        return 1;\n    }\n}\n");
    f.commit("Add a value to g (ABC-2)", 5);

    let (stats, got) = mine_json(f.path(), &tmp.path().join("p.jsonl"), &[]);
    assert_eq!(stats["commits_scanned"], 4, "{stats}");
    assert_eq!(stats["skipped_commits"]["feature"], 1, "{stats}");
    assert_eq!(stats["duplicate_pairs"], 1, "{stats}");
    assert_eq!(stats["pairs"], 1, "{stats}");
    assert_eq!(got.len(), 1);
    assert_eq!(got[0]["meta"]["commit"], original, "the oldest commit's row is kept");
    assert_eq!(got[0]["id"], format!("picked:{}:A.java:A.f(int)", &original[..12]));
}

/// `-o` that would destroy something is refused before any work: `-`, a device, the bundle
/// being read, a file inside the repository; a repository given twice and `--until` not
/// after `--since` too. A symbolic link as `-o` is written through (the link stays).
#[test]
fn mine_refuses_outputs_that_would_destroy_something() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, _) = python_fixture(tmp.path());
    let bundle = tmp.path().join("py.bundle");
    git_in(Path::new(repo.path()), 9, &["bundle", "create", "-q", bundle.to_str().unwrap(), "--all"]);
    let before = std::fs::read(&bundle).unwrap();
    let inside = format!("{}/pkg/mod.py", repo.path());
    let cases: [(Vec<&str>, &str); 6] = [
        (vec![repo.path(), "-o", "-"], "give a file path"),
        (vec![repo.path(), "-o", "/dev/null"], "not a regular file"),
        (vec![bundle.to_str().unwrap(), "-o", bundle.to_str().unwrap()], "is (or is inside) the input"),
        (vec![repo.path(), "-o", inside.as_str()], "is (or is inside) the input"),
        (vec![repo.path(), repo.path(), "-o", "/tmp/never.jsonl"], "given twice"),
        (
            vec![repo.path(), "-o", "/tmp/never.jsonl", "--since", "2021-01-02", "--until", "2021-01-01"],
            "not after --since",
        ),
    ];
    for (args, says) in cases {
        let o = mine(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
    assert_eq!(std::fs::read(&bundle).unwrap(), before, "the bundle is untouched");
    assert!(std::fs::read_to_string(&inside).unwrap().contains("LIMIT"), "the source is untouched");
    let target = tmp.path().join("target.jsonl");
    std::fs::write(&target, "{\"keep\": 1}\n").unwrap();
    let link = tmp.path().join("link.jsonl");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let (stats, _) = mine_json(repo.path(), &link, &[]);
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(rows(&target).len() as u64, stats["pairs"].as_u64().unwrap());
}

/// A symbolic link whose target changes is not source code: skipped as `symlink`.
#[test]
fn mine_skips_symbolic_links() {
    let tmp = tempfile::tempdir().unwrap();
    let f = Fixture::new(tmp.path(), "links");
    f.write("a.py", "def f():\n    return 1\n");
    f.write("b.py", "def f():\n    return 2\n");
    std::os::unix::fs::symlink("a.py", f.dir.join("link.py")).unwrap();
    f.commit("Initial import", 1);
    std::fs::remove_file(f.dir.join("link.py")).unwrap();
    std::os::unix::fs::symlink("b.py", f.dir.join("link.py")).unwrap();
    f.commit("Fix the link bug", 2);
    let (stats, got) = mine_json(f.path(), &tmp.path().join("o.jsonl"), &[]);
    assert!(got.is_empty(), "{got:?}");
    assert_eq!(stats["skipped_files"]["symlink"], 1, "{stats}");
}

/// SIGINT in the middle of a run removes the temporary output and the bundle's temporary
/// repository, and exits 130.
#[test]
fn mine_interrupted_leaves_nothing_behind() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, _) = python_fixture(tmp.path());
    let bundle = tmp.path().join("py.bundle");
    git_in(Path::new(repo.path()), 9, &["bundle", "create", "-q", bundle.to_str().unwrap(), "--all"]);
    let out_dir = tmp.path().join("out");
    let temp_root = tmp.path().join("tmp");
    std::fs::create_dir_all(&out_dir).unwrap();
    std::fs::create_dir_all(&temp_root).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_fixdex"))
        .args(["mine", bundle.to_str().unwrap(), "-o", out_dir.join("o.jsonl").to_str().unwrap(), "--json"])
        .env("TMPDIR", &temp_root)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Signal once the bundle's temporary repository exists (the signals are taken by then),
    // or not at all if the run is already over.
    let started = std::time::Instant::now();
    let working = || {
        std::fs::read_dir(&temp_root)
            .unwrap()
            .filter_map(Result::ok)
            .any(|e| std::fs::read_dir(e.path()).is_ok_and(|mut d| d.next().is_some()))
    };
    while !working() && child.try_wait().unwrap().is_none() && started.elapsed().as_secs() < 10 {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    if child.try_wait().unwrap().is_none() {
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), nix::sys::signal::Signal::SIGINT)
            .unwrap();
    }
    let status = child.wait().unwrap();
    // Either the signal arrived while it worked (130, nothing left) or the run had already
    // finished (0, a complete output): never a partial state.
    let left: Vec<_> = std::fs::read_dir(&out_dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    let temps: Vec<_> = std::fs::read_dir(&temp_root).unwrap().map(|e| e.unwrap().file_name()).collect();
    match status.code() {
        Some(130) => assert!(left.is_empty(), "{left:?}"),
        Some(0) => assert_eq!(left, ["o.jsonl"]),
        other => panic!("exit {other:?}"),
    }
    assert!(temps.is_empty(), "temporary folders left: {temps:?}");
}

/// A Java class `G` whose first line holds a generated table of `entries` numbers and, after
/// it on the same line, the method `f`; `op` is `f`'s operator (`-` buggy, `+` fixed).
fn generated_class(entries: usize, op: char) -> String {
    let table = "7,".repeat(entries);
    format!("class G {{ static int[] T = {{{table}}}; int f(int x) {{ return x {op} 1; }}\n}}\n")
}

/// Issue 29 item 5: a fix touching a big generated Java file (a table on one line, then a
/// 30-byte method) cost 31.7 s and 1.69 GB with the 5 MB original, and its method was
/// skipped as `method_too_long` (its span started at the start of its line). Now a file
/// over `--max-file-bytes` (default 1 MiB) is skipped as `too_large` before it is read or
/// parsed, and a smaller one gives the method's pair, measured from its own start.
#[test]
fn issue_29_big_files_are_skipped_and_methods_measured_from_their_start() {
    let tmp = tempfile::tempdir().unwrap();
    let f = Fixture::new(tmp.path(), "gen");
    f.write("src/G.java", generated_class(30_000, '-')); // 60 KB: under the limit
    f.write("src/Big.java", generated_class(1_000_000, '-')); // 2 MB: over the default limit
    f.commit("Initial import", 1);
    f.write("src/G.java", generated_class(30_000, '+'));
    f.write("src/Big.java", generated_class(1_000_000, '+'));
    f.commit("Fix the off-by-one bug in f", 2);
    let started = std::time::Instant::now();
    let (stats, got) = mine_json(f.path(), &tmp.path().join("o.jsonl"), &[]);
    assert!(started.elapsed().as_secs() < 20, "mining took {:?}", started.elapsed());
    assert_eq!(stats["skipped_files"]["too_large"], 1, "{stats}");
    assert!(stats["skipped_methods"].get("method_too_long").is_none(), "{stats}");
    let id = format!("gen:{}:src/G.java:G.f(int)", short(&f));
    let pair = got.iter().find(|r| r["id"] == id.as_str()).unwrap_or_else(|| panic!("no {id} in {got:?}"));
    assert_eq!(pair["buggy_code"], "int f(int x) { return x - 1; }");
    // The limit is a flag: under 10 kB, G.java is skipped too.
    let (stats, got) = mine_json(f.path(), &tmp.path().join("p.jsonl"), &["--max-file-bytes", "10000"]);
    assert_eq!((stats["skipped_files"]["too_large"].as_u64(), got.len()), (Some(2), 0), "{stats}");
}

/// The first 12 hex digits of HEAD.
fn short(f: &Fixture) -> String {
    f.git(2, &["rev-parse", "HEAD"])[..12].to_string()
}

/// Issue 29 item 6: two files whose names differ only in a byte that is not UTF-8
/// (`src/X\xe9.java`, `src/X\xe8.java`) gave two rows with one id (`src/X\u{fffd}.java`),
/// and `index` dropped one. Raw bytes are escaped losslessly (`\xe9`), a backslash as `\\`.
#[test]
fn issue_29_non_utf8_paths_keep_their_ids_apart() {
    use std::os::unix::ffi::OsStrExt;
    let tmp = tempfile::tempdir().unwrap();
    let f = Fixture::new(tmp.path(), "bytes");
    let names: [&[u8]; 3] = [b"src/X\xe9.java", b"src/X\xe8.java", b"src/Y\\Z.java"];
    // Each file's own constant: equal pairs would be dropped as repeats of one another.
    let class =
        |op: char, n: usize| format!("class X {{\n    int f(int a) {{\n        return a {op} {n};\n    }}\n}}\n");
    std::fs::create_dir_all(f.dir.join("src")).unwrap();
    for (n, name) in names.iter().enumerate() {
        std::fs::write(f.dir.join(std::ffi::OsStr::from_bytes(name)), class('-', n)).unwrap();
    }
    f.commit("Initial import", 1);
    for (n, name) in names.iter().enumerate() {
        std::fs::write(f.dir.join(std::ffi::OsStr::from_bytes(name)), class('+', n)).unwrap();
    }
    f.commit("Fix the off-by-one bug in f", 2);
    let out = tmp.path().join("o.jsonl");
    let (_, got) = mine_json(f.path(), &out, &[]);
    let mut paths: Vec<&str> = got.iter().map(|r| r["meta"]["path"].as_str().unwrap()).collect();
    paths.sort_unstable();
    assert_eq!(paths, [r"src/X\xe8.java", r"src/X\xe9.java", r"src/Y\\Z.java"]);
    let ids: std::collections::HashSet<&str> = got.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 3, "{ids:?}");
    let s = Scratch::new();
    let stats = s.index(&out, &tmp.path().join("o.fdx"), &[]);
    assert_eq!((stats["indexed"].as_u64(), stats["duplicate_ids"].as_u64()), (Some(3), Some(0)), "{stats}");
}

/// Issue 29 (partial): a fix commit that changes only Go code was counted as
/// `no_source_change`; it is `unsupported_language` (and its file too).
#[test]
fn issue_29_go_only_fix_is_an_unsupported_language() {
    let tmp = tempfile::tempdir().unwrap();
    let f = Fixture::new(tmp.path(), "gofix");
    f.write("main.go", "package main\n\nfunc f(x int) int { return x - 1 }\n");
    f.write("README.md", "readme\n");
    f.commit("Initial import", 1);
    f.write("main.go", "package main\n\nfunc f(x int) int { return x + 1 }\n");
    f.commit("Fix the off-by-one bug in f", 2);
    f.write("README.md", "readme, fixed\n");
    f.commit("Fix a typo bug in the readme (ABC-1)", 3);
    let (stats, got) = mine_json(f.path(), &tmp.path().join("o.jsonl"), &[]);
    assert!(got.is_empty());
    assert_eq!(stats["skipped_commits"]["unsupported_language"], 1, "{stats}");
    assert_eq!(stats["skipped_commits"]["no_source_change"], 1, "{stats}");
    assert_eq!(stats["skipped_files"]["unsupported_language"], 1, "{stats}");
}

/// Issue 29 (partial): two `mine` runs on one output: the last one's rename won silently.
/// A run while another holds the output's lock is refused, naming the lock and the pid;
/// a finished run leaves no lock file.
#[test]
fn issue_29_a_second_mine_run_on_one_output_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, _) = python_fixture(tmp.path());
    let out = tmp.path().join("o.jsonl");
    let held = engine::output::Lock::acquire(&out).unwrap(); // the "first run": this process
    let o = mine(&[repo.path(), "-o", out.to_str().unwrap()]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let lock = format!("{}.lock", out.display());
    assert!(err.contains(&format!("pid {}", std::process::id())) && err.contains(&lock), "{err}");
    assert!(!out.exists());
    drop(held);
    let (stats, got) = mine_json(repo.path(), &out, &[]);
    assert_eq!(got.len() as u64, stats["pairs"].as_u64().unwrap());
    assert!(!Path::new(&lock).exists(), "the lock file is removed");
}
