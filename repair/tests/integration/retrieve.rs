//! The external-ingredient tool over a real index file (tiny seeded model).

use std::sync::Arc;

use engine::hnsw::{self, HnswConfig};
use engine::{IndexBuilder, Record, Space};
use repair::retrieve::{Exclusion, FixStyle, RetrieveParams, Retriever, render, render_as};

fn build(dir: &std::path::Path) -> (std::path::PathBuf, Arc<dyn engine::embed::Embedder>, Vec<Record>) {
    build_at(&dir.join("t.fdx"), engine::testing::sample_records(24))
}

/// An index of `docs` at `path` (spaces code+cause and code) with the tiny model.
fn build_at(
    path: &std::path::Path,
    docs: Vec<Record>,
) -> (std::path::PathBuf, Arc<dyn engine::embed::Embedder>, Vec<Record>) {
    let model: Arc<dyn engine::embed::Embedder> = Arc::new(engine::testing::tiny_embedder());
    let path = path.to_path_buf();
    let mut b = IndexBuilder::new(model.identity().to_meta(), engine::testing::text_meta());
    let cfg = HnswConfig::default();
    for s in [Space::CodeCause, Space::Code] {
        let v = engine::testing::embed_records(model.as_ref(), &docs, s).unwrap();
        let g = hnsw::build(&v, model.dim(), &cfg).unwrap();
        b.add_space(s, v, g, &cfg).unwrap();
    }
    b.write(&path, &docs, serde_json::Value::Null).unwrap();
    (path, model, docs)
}

#[test]
fn exclusion_and_exact_match_leakage_filter() {
    let dir = tempfile::tempdir().unwrap();
    let (path, model, docs) = build(dir.path());
    let q = &docs[4];
    let open = |ex: Exclusion| Retriever::open(&path, Arc::clone(&model), ex).unwrap();
    let p = RetrieveParams { k: 5, ..RetrieveParams::default() };

    // Without exclusion, the query's own record would be rank 1 but is dropped as an
    // exact match of the query code; the five fixes are other records.
    let r = open(Exclusion::default()).search(&q.buggy_code, &q.root_cause, &p).unwrap();
    assert_eq!(r.dropped_exact, 1);
    assert_eq!(r.fixes.len(), 5);
    assert!(r.fixes.iter().all(|f| f.id != q.id));
    assert_eq!(r.fixes.iter().map(|f| f.rank).collect::<Vec<_>>(), [1, 2, 3, 4, 5]);
    assert!(r.fixes.windows(2).all(|w| w[0].score >= w[1].score));
    // The diff is buggy → fixed.
    let f = &r.fixes[0];
    let d = docs.iter().find(|d| d.id == f.id).unwrap();
    assert!(
        f.diff.contains(&format!("-{}", d.buggy_code)) && f.diff.contains(&format!("+{}", d.fixed_code)),
        "{}",
        f.diff
    );

    // By id: the query's record cannot come back even under a slightly different query code.
    let other_code = format!("{} ", q.buggy_code.replace('{', "{ "));
    let ex = Exclusion { ids: vec![q.id.clone()], projects: vec![], keep_ids: Vec::new() };
    let r = open(ex).search(&other_code, &q.root_cause, &p).unwrap();
    assert!(r.fixes.iter().all(|f| f.id != q.id));

    // By project.
    let ex = Exclusion { ids: vec![], projects: vec!["proj0".into(), "proj1".into()], keep_ids: Vec::new() };
    let r = open(ex).search(&q.buggy_code, &q.root_cause, &p).unwrap();
    assert!(!r.fixes.is_empty() && r.fixes.iter().all(|f| f.project == "proj2"), "{:?}", r.fixes);

    // Threshold: nothing at or above 1.0 except exact duplicates, which are dropped.
    let r = open(Exclusion::default())
        .search(&q.buggy_code, &q.root_cause, &RetrieveParams { threshold: Some(0.99999), ..p })
        .unwrap();
    assert!(r.fixes.iter().all(|f| f.score >= 0.99999));
    assert!(render(&r, 1000).contains("similar fix") || r.fixes.is_empty());
}

/// Issue 11: each retrieved fix carries the actions stored with its document, and both the
/// tool answer and the repair prompt's similar-fix section print them above the diff.
#[test]
fn issue_11_fixes_carry_their_stored_actions_into_answers_and_prompts() {
    let dir = tempfile::tempdir().unwrap();
    let (path, model, docs) = build(dir.path());
    let r = Retriever::open(&path, model, Exclusion::default()).unwrap();
    let q = &docs[5];
    let found = r.search(&q.buggy_code, &q.root_cause, &RetrieveParams { k: 8, ..RetrieveParams::default() }).unwrap();
    assert_eq!(found.fixes.len(), 8);
    for f in &found.fixes {
        let d = docs.iter().find(|d| d.id == f.id).unwrap();
        assert_eq!(f.fix_actions.action_label, d.action_label);
        assert_eq!(serde_json::to_string(&f.fix_actions.actions).unwrap(), d.actions);
        let json = serde_json::to_value(f).unwrap();
        assert_eq!(json["action_label"], d.action_label.as_str(), "{json}");
        assert!(json["actions"].is_array(), "{json}");
    }
    let loop_fix = "Action: change loop bound <= → < in for condition\n```diff\n";
    let unparsed = "Action: OTHER (parse error)\n```diff\n";
    for style in [FixStyle::Tool, FixStyle::Prompt] {
        let text = render_as(&found, 100_000, style);
        assert!(text.contains(loop_fix) && text.contains(unparsed), "{style:?}: {text}");
        assert_eq!(text.matches("\nAction: ").count(), 8, "{text}");
    }
    // A document never classified gets no action line.
    let mut bare = found;
    bare.fixes.truncate(1);
    bare.fixes[0].fix_actions = repair::retrieve::actions::FixActions::default();
    assert!(!render_as(&bare, 100_000, FixStyle::Prompt).contains("Action:"));
}

#[test]
fn tool_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let (path, model, docs) = build(dir.path());
    let r = Retriever::open(&path, model, Exclusion::default()).unwrap();
    assert_eq!(r.spec().name, "search_similar_fixes");
    let ok = r
        .call(&serde_json::json!({"code": docs[1].buggy_code, "root_cause": "null check", "k": 2, "space": "code"}))
        .unwrap();
    assert_eq!((ok.space.as_str(), ok.fixes.len()), ("code", 2));
    let text = render(&ok, 10_000);
    assert!(text.starts_with("### Similar fix 1 (similarity "), "{text}");
    assert!(text.contains("```diff\n"), "{text}");
    let short = render(&ok, 50);
    assert!(short.contains("[1 more similar fixes left out for length]"), "{short}");
    for (args, needle) in [
        (serde_json::json!({"root_cause": "x"}), "argument `code`"),
        (serde_json::json!({"code": "x"}), "argument `root_cause`"),
        (serde_json::json!({"code": "x", "root_cause": "y", "k": 0}), "`k` must be"),
        (serde_json::json!({"code": "x", "root_cause": "y", "threshold": 2}), "`threshold` must be"),
        (serde_json::json!({"code": "x", "root_cause": "y", "space": "diff"}), "`space` must be one of"),
        (serde_json::json!({"code": "x\ny", "root_cause": "y", "lines": "2-3"}), "2-3 is past the code's 2 lines"),
        (serde_json::json!({"code": "x", "root_cause": "y", "lines": 1}), "`lines` must be `A-B` or `A`"),
        (serde_json::json!({"code": "x", "root_cause": "y", "lines": "0"}), "`lines` must be `A-B` or `A`"),
    ] {
        let e = r.call(&args).unwrap_err().to_string();
        assert!(e.contains(needle), "{args}: {e}");
    }
    // Issue 11 item 4: `lines` within the code is accepted (short code: the same answer).
    let code = &docs[1].buggy_code;
    let with = r.call(&serde_json::json!({"code": code, "root_cause": "null check", "k": 2, "lines": "1"})).unwrap();
    let without = r.call(&serde_json::json!({"code": code, "root_cause": "null check", "k": 2})).unwrap();
    let ids = |x: &repair::retrieve::Retrieval| x.fixes.iter().map(|f| f.id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&with), ids(&without));
    // A space the index does not have is named by the engine.
    let e = r.call(&serde_json::json!({"code": "x", "root_cause": "y", "space": "cause"})).unwrap_err().to_string();
    assert!(e.contains("cause"), "{e}");
}

#[test]
fn another_model_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _, _) = build(dir.path());
    let other: Arc<dyn engine::embed::Embedder> = Arc::new(engine::testing::tiny_embedder_with_seed(99));
    let e = Retriever::open(&path, other, Exclusion::default()).unwrap_err().to_string();
    assert!(e.to_lowercase().contains("model"), "{e}");
}

/// Issue 8 item 18: a retriever excluding `Closure` never returns `google/closure-compiler`
/// either, and says what the exclusion matched (the repair report's
/// `retrieval.excluded_projects`).
#[test]
fn issue_8_excluded_projects_match_by_identity() {
    let dir = tempfile::tempdir().unwrap();
    let model: Arc<dyn engine::embed::Embedder> = Arc::new(engine::testing::tiny_embedder());
    let mut docs = engine::testing::sample_records(24);
    let projects = ["Closure", "google/closure-compiler", "netty/netty"];
    for (i, d) in docs.iter_mut().enumerate() {
        d.project = projects[i % 3].to_string();
    }
    let path = dir.path().join("p.fdx");
    let mut b = IndexBuilder::new(model.identity().to_meta(), engine::testing::text_meta());
    let cfg = HnswConfig::default();
    let v = engine::testing::embed_records(model.as_ref(), &docs, Space::CodeCause).unwrap();
    b.add_space(Space::CodeCause, v.clone(), hnsw::build(&v, model.dim(), &cfg).unwrap(), &cfg).unwrap();
    b.write(&path, &docs, serde_json::Value::Null).unwrap();
    let ex = Exclusion { ids: vec![], projects: vec!["closure".into(), "Lang".into()], keep_ids: Vec::new() };
    let r = Retriever::open(&path, model, ex).unwrap();
    let m = r.excluded_projects();
    assert_eq!(
        (m[0].given.as_str(), m[0].matched.clone()),
        ("closure", vec!["Closure".into(), "google/closure-compiler".into()])
    );
    assert!(m[1].matched.is_empty());
    let p = RetrieveParams { k: 8, ..RetrieveParams::default() };
    let found = r.search(&docs[0].buggy_code, &docs[0].root_cause, &p).unwrap();
    assert!(!found.fixes.is_empty() && found.fixes.iter().all(|f| f.project == "netty/netty"), "{:?}", found.fixes);
    let with_lang =
        r.with_exclusion(Exclusion { ids: vec![], projects: vec!["netty/netty".into()], keep_ids: Vec::new() });
    assert_eq!(with_lang.excluded_projects()[0].matched, vec!["netty/netty".to_string()]);
}

/// Issue 8 item 5: empty or invisible code in a tool call is a model-facing argument error
/// (HTTP 422), not hits.
#[test]
fn issue_8_blank_code_is_an_argument_error() {
    let dir = tempfile::tempdir().unwrap();
    let (path, model, _) = build(dir.path());
    let r = Retriever::open(&path, model, Exclusion::default()).unwrap();
    for code in ["", "   \n", "\u{200B}\u{200B}"] {
        let e = r.call(&serde_json::json!({"code": code, "root_cause": ""})).unwrap_err();
        assert!(matches!(e, repair::retrieve::RetrieveError::Arguments(_)), "{code:?}: {e}");
        assert!(e.to_string().contains("empty query"), "{e}");
    }
}

/// `n` sample records with ids prefixed by `tag` (to tell indexes apart).
fn tagged(tag: &str, n: usize) -> Vec<Record> {
    let mut docs = engine::testing::sample_records(n);
    for d in &mut docs {
        d.id = format!("{tag}{}", d.id);
    }
    docs
}

fn ids(r: &Retriever) -> Result<Vec<String>, repair::retrieve::RetrieveError> {
    let p = RetrieveParams { k: 20, ..RetrieveParams::default() };
    Ok(r.search("int f() { return 0; }", "wrong constant", &p)?.fixes.into_iter().map(|f| f.id).collect())
}

/// Issue 8 item 4 (library level): a retriever follows a manifest and its segments; a
/// segment renamed over, or a manifest rewritten, is served from the next query on.
#[test]
fn issue_8_retriever_follows_a_manifest_and_its_segments() {
    let dir = tempfile::tempdir().unwrap();
    let (a, model, _) = build_at(&dir.path().join("a.fdx"), tagged("a", 6));
    build_at(&dir.path().join("b.fdx"), tagged("b", 6));
    let manifest = dir.path().join("m.json");
    engine::Segments::write_manifest(&manifest, &[a.clone(), dir.path().join("b.fdx")]).unwrap();
    let r = Retriever::open(&manifest, model, Exclusion::default()).unwrap();
    assert_eq!(r.status().served.files.len(), 3, "manifest and two segments");
    let got = ids(&r).unwrap();
    assert_eq!(got.len(), 12);
    assert!(got.iter().all(|id| id.starts_with('a') || id.starts_with('b')), "{got:?}");

    // A segment rebuilt and renamed into place.
    build_at(&dir.path().join("c.tmp"), tagged("c", 6));
    std::fs::rename(dir.path().join("c.tmp"), dir.path().join("b.fdx")).unwrap();
    let got = ids(&r).unwrap();
    assert_eq!(got.iter().filter(|id| id.starts_with('c')).count(), 6, "{got:?}");
    assert_eq!(r.status().served.generation, 2);

    // The manifest rewritten to list one segment.
    engine::Segments::write_manifest(&manifest, &[a]).unwrap();
    assert_eq!(ids(&r).unwrap().len(), 6);
    let status = r.status();
    assert_eq!((status.served.generation, status.served.files.len(), status.error), (3, 2, None));
}

/// Issue 8 item 4 (library level): an index truncated in place is reported on every query
/// (naming the path, never reading the old copy), in both load modes, until a good file is
/// published at the path.
#[test]
fn issue_8_retriever_reports_a_truncated_index_until_a_good_one_is_published() {
    for load in [engine::Load::Memory, engine::Load::Mmap] {
        let dir = tempfile::tempdir().unwrap();
        let (path, model, _) = build_at(&dir.path().join("t.fdx"), tagged("old", 8));
        let r = Retriever::open_with(&path, model, Exclusion::default(), load).unwrap();
        assert_eq!(ids(&r).unwrap().len(), 8);
        let len = std::fs::metadata(&path).unwrap().len();
        std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(len / 2).unwrap();
        for _ in 0..2 {
            let e = ids(&r).unwrap_err();
            assert!(matches!(e, repair::retrieve::RetrieveError::Unavailable { .. }), "{load:?}: {e}");
            let msg = e.to_string();
            assert!(msg.contains(path.to_str().unwrap()) && msg.contains("truncated"), "{msg}");
        }
        let status = r.status();
        assert!(status.error.is_some_and(|e| e.contains("truncated")));
        assert_eq!(status.served.generation, 1, "still the last generation served");

        build_at(&dir.path().join("new.tmp"), tagged("new", 5));
        std::fs::rename(dir.path().join("new.tmp"), &path).unwrap();
        let got = ids(&r).unwrap();
        assert!(got.len() == 5 && got.iter().all(|id| id.starts_with("new")), "{got:?}");
        assert_eq!(r.status().served.generation, 2);
        assert_eq!(r.status().served.load, load.name());
    }
}

/// Issue 11 items 2 and 3: a ranking other than dense reorders the same pool without
/// losing the exclusions or the exact-match filter, every answer names its ranking and
/// carries suggestions drawn from its fixes, and tool calls use the retriever's ranking.
#[test]
fn issue_11_ranked_retrieval_keeps_the_leakage_control_and_suggests_actions() {
    let dir = tempfile::tempdir().unwrap();
    let (path, model, docs) = build(dir.path());
    let q = &docs[4];
    let ex = Exclusion { ids: vec![], projects: vec!["proj0".into()], keep_ids: Vec::new() };
    let r = Retriever::open(&path, Arc::clone(&model), ex).unwrap();
    let dense = RetrieveParams { k: 6, ..RetrieveParams::default() };
    let action = RetrieveParams { rank: repair::retrieve::rank::Rank::Action, ..dense.clone() };
    let (d, a) = (
        r.search(&q.buggy_code, &q.root_cause, &dense).unwrap(),
        r.search(&q.buggy_code, &q.root_cause, &action).unwrap(),
    );
    assert_eq!((d.rank.as_str(), a.rank.as_str()), ("dense", "action"));
    for ans in [&d, &a] {
        assert_eq!(ans.dropped_exact, 1, "the query's own record is dropped under every ranking");
        assert!(ans.fixes.iter().all(|f| f.project != "proj0" && f.id != q.id), "{:?}", ans.fixes);
        assert_eq!(ans.fixes.iter().map(|f| f.rank).collect::<Vec<_>>(), [1, 2, 3, 4, 5, 6]);
        let ids: Vec<&str> = ans.fixes.iter().map(|f| f.id.as_str()).collect();
        for s in &ans.suggestions {
            assert!(s.evidence.iter().all(|e| ids.contains(&e.id.as_str())), "evidence comes from the fixes: {s:?}");
        }
        let labelled =
            ans.fixes.iter().filter(|f| !matches!(f.fix_actions.action_label.as_str(), "" | "OTHER")).count();
        assert_eq!(ans.suggestions.iter().map(|s| s.support).sum::<usize>(), labelled, "{:?}", ans.suggestions);
    }
    // The action ranking draws its fixes from the dense pool of at least 100 candidates.
    let pool = r.search(&q.buggy_code, &q.root_cause, &RetrieveParams { k: 100, ..dense }).unwrap();
    assert!(a.fixes.iter().all(|f| pool.fixes.iter().any(|p| p.id == f.id)));
    let args = serde_json::json!({"code": q.buggy_code, "root_cause": q.root_cause, "k": 3});
    assert_eq!(r.call(&args).unwrap().rank, "dense");
    assert_eq!(r.with_rank(repair::retrieve::rank::Rank::Hybrid).call(&args).unwrap().rank, "hybrid");
}

/// Issue 31: an answer says whether the HNSW graph was searched, and with which beam width
/// (what the repair report records as `retrieval.ef`); none for exact search.
#[test]
fn issue_31_an_answer_carries_the_ef_of_a_graph_search() {
    let dir = tempfile::tempdir().unwrap();
    let (path, model, docs) = build(dir.path());
    let r = Retriever::open(&path, model, Exclusion::default()).unwrap();
    let q = &docs[3];
    let graph = RetrieveParams { exact: Some(false), ef_search: 77, ..RetrieveParams::default() };
    assert_eq!(r.search(&q.buggy_code, &q.root_cause, &graph).unwrap().ef, Some(77));
    let exact = RetrieveParams { exact: Some(true), ..graph.clone() };
    assert_eq!(r.search(&q.buggy_code, &q.root_cause, &exact).unwrap().ef, None);
    // A small index is searched exactly unless asked otherwise.
    let small = RetrieveParams { exact: None, ..graph };
    assert_eq!(r.search(&q.buggy_code, &q.root_cause, &small).unwrap().ef, None);
}

/// Issue 31: whether each excluded id names a record; an id in another form (without the
/// source prefix, with another prefix, another case) lists the stored ids it may mean; an id
/// like none lists nothing.
#[test]
fn issue_31_excluded_ids_say_whether_they_name_a_record() {
    let dir = tempfile::tempdir().unwrap();
    let (path, model, _) = build(dir.path());
    let ids = ["test:3", "3", "other:3", "TEST:3", "test:nothing"].map(String::from).to_vec();
    let r = Retriever::open(&path, model, Exclusion { ids, projects: Vec::new(), keep_ids: Vec::new() }).unwrap();
    let got: Vec<(bool, Vec<String>)> = r.excluded_ids().unwrap().into_iter().map(|m| (m.found, m.similar)).collect();
    let three = vec!["test:3".to_string()];
    assert_eq!(got, [(true, vec![]), (false, three.clone()), (false, three.clone()), (false, three), (false, vec![])]);
}
