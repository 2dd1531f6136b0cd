//! Issue 11 item 4: rule `cause-first-window-v1` embeds a long method around its buggy
//! lines, with the real model (documents: the lines the fix changes; queries: `--lines`).

use std::path::{Path, PathBuf};

use crate::common::{fixdex, record, repo, stderr, stdout_json};

/// Distinct buggy regions (3 lines each, the middle one buggy) and their fixed middles.
const REGIONS: [(&str, &str, &str, &str); 8] = [
    (
        "int total = 0;",
        "for (int k = 0; k <= prices.length; k++) { total += prices[k]; }",
        "for (int k = 0; k < prices.length; k++) { total += prices[k]; }",
        "invoice.setTotal(total);",
    ),
    (
        "String name = user.getName();",
        "if (name.equals(null)) { throw new IllegalStateException(\"no user name\"); }",
        "if (name == null) { throw new IllegalStateException(\"no user name\"); }",
        "greeting.append(name.trim());",
    ),
    (
        "File dir = new File(config.getOutputDirectory());",
        "if (dir.exists()) { dir.mkdirs(); }",
        "if (!dir.exists()) { dir.mkdirs(); }",
        "writer = new FileWriter(new File(dir, \"report.csv\"));",
    ),
    (
        "double celsius = sensor.readTemperature();",
        "double fahrenheit = celsius * 5 / 9 + 32;",
        "double fahrenheit = celsius * 9 / 5 + 32;",
        "display.showTemperature(fahrenheit);",
    ),
    (
        "Map<String, Integer> counts = new HashMap<>();",
        "for (String word : words) { counts.put(word, counts.get(word) + 1); }",
        "for (String word : words) { counts.merge(word, 1, Integer::sum); }",
        "histogram.render(counts);",
    ),
    (
        "long elapsedMillis = clock.now() - startMillis;",
        "int seconds = (int) elapsedMillis * 1000;",
        "int seconds = (int) (elapsedMillis / 1000);",
        "timer.setLabel(seconds + \" s\");",
    ),
    (
        "socket = new Socket(host, port);",
        "socket.setSoTimeout(-1);",
        "socket.setSoTimeout(30000);",
        "stream = socket.getInputStream();",
    ),
    (
        "List<Order> pending = repository.findPendingOrders();",
        "Collections.sort(pending, (a, b) -> a.getDate().compareTo(a.getDate()));",
        "Collections.sort(pending, (a, b) -> a.getDate().compareTo(b.getDate()));",
        "scheduler.dispatch(pending);",
    ),
];

/// Lines of shared set-up code before the buggy region.
const PREAMBLE: usize = 150;

/// Method `i`: a signature, `PREAMBLE` identical set-up lines, region `i` (buggy or
/// fixed), 4 identical closing lines. The buggy line is line `PREAMBLE + 3` (1-based).
fn method(i: usize, fixed: bool) -> String {
    let (before, bug, fix, after) = REGIONS[i];
    let mut s = format!("public void handle{i}(Request request, Context context) throws IOException {{\n");
    for j in 0..PREAMBLE {
        s += &format!("    context.log(\"preparing step {j}\", request.getHeader(\"X-Trace-{j}\"));\n");
    }
    s += &format!("    {before}\n    {}\n    {after}\n", if fixed { fix } else { bug });
    s + "    context.flush();\n    context.close();\n    request.release();\n}\n"
}

/// The ±5 lines around method `i`'s buggy line, and the buggy line's number within them.
fn region_query(i: usize) -> (String, usize) {
    let code = method(i, false);
    let lines: Vec<&str> = code.lines().collect();
    let bug = PREAMBLE + 2; // 0-based
    (lines[bug - 5..=bug + 5].join("\n") + "\n", 6)
}

fn model() -> PathBuf {
    let m = repo().join("data/models/all-MiniLM-L6-v2");
    assert!(m.is_dir(), "run scripts/fetch-model.sh first (CI does)");
    m
}

fn build(dir: &Path, rule: &str) -> PathBuf {
    let corpus = dir.join("long.jsonl");
    let lines: Vec<String> = (0..REGIONS.len())
        .map(|i| record(&format!("long-{i}"), "java", &method(i, false), &method(i, true), "") + "\n")
        .collect();
    std::fs::write(&corpus, lines.concat()).unwrap();
    let idx = dir.join(format!("{rule}.fdx"));
    let args =
        ["index", corpus.to_str().unwrap(), "-o", idx.to_str().unwrap(), "--spaces", "code", "--embed-rule", rule];
    let stats = stdout_json(&fixdex(&[&args[..], &["--json"]].concat(), Some(&model())));
    assert_eq!(stats["indexed"], REGIONS.len());
    let windowed = if rule == "v1" { 0 } else { REGIONS.len() };
    assert_eq!(stats["windowed"], windowed, "{stats}");
    idx
}

/// Rank (1-based) of method `i` when searching with its buggy region; 0 when not in the top 8.
fn rank(dir: &Path, idx: &Path, i: usize) -> usize {
    let (code, line) = region_query(i);
    let q = dir.join("q.java");
    std::fs::write(&q, code).unwrap();
    let line = line.to_string();
    // `--rank dense`: this measures the embedding, i.e. the cosine order.
    let args = [
        "search",
        idx.to_str().unwrap(),
        "--code",
        q.to_str().unwrap(),
        "--space",
        "code",
        "--exact",
        "--rank",
        "dense",
    ];
    let o = fixdex(&[&args[..], &["--lines", &line, "-k", "8", "--json"]].concat(), Some(&model()));
    let hits = stdout_json(&o)["hits"].as_array().unwrap().clone();
    hits.iter().position(|h| h["id"] == format!("long-{i}")).map_or(0, |p| p + 1)
}

/// A method of 157 lines whose bug is 5 lines from the end: the cut-off rule embeds only
/// the identical set-up code, so the buggy region cannot tell the methods apart; the window
/// rule embeds the region, and each query finds its own method first.
#[test]
fn issue_11_window_rule_retrieves_long_methods_by_their_buggy_region() {
    assert!(method(0, false).lines().count() >= 150);
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = (build(dir.path(), "v1"), build(dir.path(), "window-v1"));
    let ranks = |idx: &Path| (0..REGIONS.len()).map(|i| rank(dir.path(), idx, i)).collect::<Vec<_>>();
    let (old_ranks, new_ranks) = (ranks(&old), ranks(&new));
    assert!(new_ranks.iter().all(|&r| r == 1), "window rule ranks {new_ranks:?}");
    let old_top1 = old_ranks.iter().filter(|&&r| r == 1).count();
    assert!(old_top1 <= REGIONS.len() / 2, "cut-off rule ranks {old_ranks:?}: the test no longer separates them");
    // Each index records its rule, and inspect shows it.
    for (idx, rule) in [(&old, "cause-first-v1"), (&new, "cause-first-window-v1")] {
        let o = fixdex(&["inspect", idx.to_str().unwrap()], None);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(String::from_utf8_lossy(&o.stdout).contains(&format!("text: rule {rule},")), "{rule}");
        let meta = engine::Index::open(idx).unwrap().meta().text.rule.clone();
        assert_eq!(meta, rule);
    }
}

/// `--lines` is checked against the snippet, and the old rule answers with or without it.
#[test]
fn issue_11_search_lines_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let idx = build(dir.path(), "v1");
    let q = dir.path().join("q.java");
    std::fs::write(&q, "int f() {\n  return 1;\n}\n").unwrap();
    let base = ["search", idx.to_str().unwrap(), "--code", q.to_str().unwrap(), "--space", "code"];
    for (lines, msg) in [
        ("2-9", "--lines 2-9 is outside the --code snippet (3 lines)"),
        ("3-2", "is empty"),
        ("0-0", "starts at line 0: lines are 1-based"),
        ("x", "not A-B"),
    ] {
        let o = fixdex(&[&base[..], &["--lines", lines]].concat(), Some(&model()));
        assert!(!o.status.success() && stderr(&o).contains(msg), "{lines}: {}", stderr(&o));
    }
    let with = stdout_json(&fixdex(&[&base[..], &["--lines", "2", "--json"]].concat(), Some(&model())));
    let without = stdout_json(&fixdex(&[&base[..], &["--json"]].concat(), Some(&model())));
    assert_eq!(with["hits"], without["hits"]);
}
