//! Sharded builds: n shard builds + a manifest answer exactly as one index (issue 3).

use std::process::Command;

use crate::common::{Scratch, records, stdout_json};

#[test]
fn shard_builds_plus_manifest_equal_single_index_exact_search() {
    let s = Scratch::new();
    let corpus = s.corpus("c.jsonl", &records(300));
    let single = s.path("single.fdx");
    s.index(&corpus, &single, &[]);
    let seg = s.path("seg-{shard}.fdx");
    let mut total = 0;
    for i in 0..3 {
        let spec = format!("{i}/3");
        let stats = s.index(&corpus, &seg, &["--shard", &spec]);
        total += stats["indexed"].as_u64().unwrap();
        assert_eq!(stats["indexed"].as_u64().unwrap() + stats["other_shards"].as_u64().unwrap(), 300);
    }
    assert_eq!(total, 300);
    // The Kubernetes way: the index comes from the environment.
    let o = Command::new(env!("CARGO_BIN_EXE_fixdex"))
        .args(["index", corpus.to_str().unwrap(), "-o", seg.to_str().unwrap(), "--shard", "auto/3", "--json"])
        .env("FIXDEX_MODEL", s.model())
        .env("JOB_COMPLETION_INDEX", "1")
        .output()
        .unwrap();
    assert_eq!(stdout_json(&o)["indexed"].as_u64().unwrap(), {
        let v = stdout_json(&s.run(&["inspect", s.path("seg-1.fdx").to_str().unwrap(), "--json"]));
        v["documents"].as_u64().unwrap()
    });
    let manifest = s.path("all.fdxm");
    let segs: Vec<String> = (0..3).map(|i| s.path(&format!("seg-{i}.fdx")).display().to_string()).collect();
    let mut args = vec!["manifest", "-o", manifest.to_str().unwrap(), "--json"];
    args.extend(segs.iter().map(String::as_str));
    assert_eq!(stdout_json(&s.run(&args))["documents"], 300);

    let docs = engine::testing::sample_records(300);
    for q in [0usize, 41, 133, 299] {
        let code = s.path("q.txt");
        std::fs::write(&code, &docs[q].buggy_code).unwrap();
        let search = |idx: &std::path::Path| s.exact_hits(idx, &code, &docs[q].root_cause, 10);
        let (a, b) = (search(&single), search(&manifest));
        assert_eq!(a.len(), 10);
        for ((ia, sa), (ib, sb)) in a.iter().zip(&b) {
            assert!((sa - sb).abs() < 1e-5, "query {q}: {a:?} vs {b:?}");
            if (sa - sb).abs() < 1e-7 {
                assert!(
                    ia == ib || a.iter().filter(|x| (x.1 - sa).abs() < 1e-6).count() > 1,
                    "query {q}: {a:?} vs {b:?}"
                );
            }
        }
        let ids = |v: &[(String, f64)]| {
            let mut x: Vec<String> = v.iter().map(|p| p.0.clone()).collect();
            x.sort();
            x
        };
        let last = a[9].1;
        if a.iter().filter(|x| (x.1 - last).abs() < 1e-6).count() == 1 {
            assert_eq!(ids(&a), ids(&b), "query {q}");
        }
    }
}

#[test]
fn bad_shard_specs_and_mismatched_segments_are_refused() {
    let s = Scratch::new();
    let corpus = s.corpus("c.jsonl", &records(20));
    let out = s.path("x.fdx");
    for spec in ["3/3", "auto/2", "two/4"] {
        let o = s.run(&["index", corpus.to_str().unwrap(), "-o", out.to_str().unwrap(), "--shard", spec]);
        assert_eq!(o.status.code(), Some(2), "{spec}: a usage error");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains(&format!("--shard {spec}")),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let a = s.path("a.fdx");
    let b = s.path("b.fdx");
    s.index(&corpus, &a, &[]);
    s.index(&corpus, &b, &["--spaces", "code"]);
    let o = s.run(&["manifest", "-o", s.path("m.fdxm").to_str().unwrap(), a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("segment 1 differs from segment 0 in spaces"), "{err}");
    assert!(err.contains(&format!("segment {} against segment {}", b.display(), a.display())), "{err}");
    // A file that is not an index, and a manifest given as a segment, are named.
    let m = s.path("ab.fdxm");
    assert!(s.run(&["manifest", "-o", m.to_str().unwrap(), a.to_str().unwrap()]).status.success());
    for (segment, says) in [(&corpus, "not a fixdex index"), (&m, "a manifest: list its segments instead")] {
        let o = s.run(&[
            "manifest",
            "-o",
            s.path("n.fdxm").to_str().unwrap(),
            a.to_str().unwrap(),
            segment.to_str().unwrap(),
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(3), "{err}");
        assert!(err.contains(&format!("segment {}", segment.display())) && err.contains(says), "{err}");
    }
}
