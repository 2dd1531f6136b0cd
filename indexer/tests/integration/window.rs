//! Issue 11 item 4: the build composes each document by the rule it records, and a query
//! with a document's own code and buggy lines composes exactly as the build did.

use engine::embed::Rule;
use engine::{Index, Space};
use indexer::build::{BuildOptions, NoProgress, build_index};

/// A 40-line method (far over the tiny model's 64 tokens) whose line 35 is buggy, and a
/// 3-line one.
fn corpus(dir: &std::path::Path) -> std::path::PathBuf {
    let mut long = String::from("int f(int a) {\n");
    for i in 0..33 {
        long += &format!("  a = a + {i};\n");
    }
    let fixed = long.clone() + "  return a - 1;\n}\n";
    long += "  return a + 1;\n}\n";
    let short = ("int g() {\n  return 0;\n}\n", "int g() {\n  return 1;\n}\n");
    let rows = [
        serde_json::json!({"id": "long", "language": "java", "buggy_code": long, "fixed_code": fixed, "root_cause": "off by two"}),
        serde_json::json!({"id": "short", "language": "java", "buggy_code": short.0, "fixed_code": short.1, "root_cause": "wrong value"}),
    ];
    let p = dir.join("c.jsonl");
    std::fs::write(&p, rows.iter().map(|r| r.to_string() + "\n").collect::<String>()).unwrap();
    p
}

fn build(dir: &std::path::Path, rule: Rule) -> (Index, indexer::build::BuildStats) {
    let mut opts = BuildOptions::new(vec![corpus(dir)], dir.join(format!("{rule}.fdx")));
    opts.rule = rule;
    opts.spaces = vec![Space::CodeCause, Space::Code];
    let stats = build_index(&opts, &engine::testing::tiny_embedder(), &NoProgress).unwrap();
    (Index::open(&opts.output).unwrap(), stats)
}

#[test]
fn window_rule_is_recorded_and_queries_compose_like_documents() {
    assert_eq!(BuildOptions::new(vec![], "x".into()).rule, Rule::CauseFirstWindow, "the default");
    let dir = tempfile::tempdir().unwrap();
    let model = engine::testing::tiny_embedder();
    let (old, old_stats) = build(dir.path(), Rule::CauseFirst);
    let (new, new_stats) = build(dir.path(), Rule::CauseFirstWindow);
    assert_eq!((old.doc(0).unwrap().id, new.doc(0).unwrap().id), ("long".to_string(), "long".to_string()));
    assert_eq!(old.meta().text.rule, "cause-first-v1");
    assert_eq!(new.meta().text.rule, "cause-first-window-v1");
    assert_eq!((old_stats.windowed, new_stats.windowed), (0, 2), "the long document, in both spaces");
    for space in [Space::CodeCause, Space::Code] {
        let row = |ix: &Index, r: usize| ix.vectors(space).unwrap()[r * 32..(r + 1) * 32].to_vec();
        assert_ne!(row(&old, 0), row(&new, 0), "{space}: the long method is windowed");
        assert_eq!(row(&old, 1), row(&new, 1), "{space}: a short method embeds the same");
        for (ix, r) in [(&old, 0), (&new, 0), (&old, 1), (&new, 1)] {
            let d = ix.doc(r as u32).unwrap();
            let lines = indexer::buggy_lines::buggy_lines(&d.buggy_code, &d.fixed_code);
            let q = ix.embed_query_lines(&model, space, (&d.buggy_code, &d.root_cause), lines).unwrap();
            let cos = engine::distance::dot(&q, &row(ix, r));
            assert!(cos > 0.99999, "{space} {}: query and document compose alike ({cos})", ix.meta().text.rule);
        }
    }
    // Without lines the window index embeds the long query's first tokens.
    let d = new.doc(0).unwrap();
    let plain = new.embed_query(&model, Space::Code, &d.buggy_code, "").unwrap();
    assert!(engine::distance::dot(&plain, &new.vectors(Space::Code).unwrap()[..32]) < 0.99999);
}
