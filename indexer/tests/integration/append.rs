//! Issue 12 item 2: indexes that grow. An index built in three appends answers like a
//! one-shot build of the same records; appends skip ids already indexed; compaction gives
//! one file that answers the same.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use engine::{Index, Record, SearchParams, Segments, Space};
use indexer::append::{append, segments_dir};
use indexer::build::{BuildOptions, NoProgress, build_index};

fn write_corpus(path: &Path, docs: &[Record]) -> PathBuf {
    let lines: String = docs
        .iter()
        .map(|r| {
            serde_json::json!({"id": r.id, "language": r.language, "project": r.project,
                "buggy_code": r.buggy_code, "fixed_code": r.fixed_code, "root_cause": r.root_cause})
            .to_string()
                + "\n"
        })
        .collect();
    std::fs::write(path, lines).unwrap();
    path.to_path_buf()
}

/// Exact top-`k` rows of `query` over the `[n, dim]` matrix `all`.
fn exact_top(all: &[f32], dim: usize, query: &[f32], k: usize) -> Vec<(usize, f32)> {
    let mut s: Vec<(usize, f32)> =
        all.chunks_exact(dim).enumerate().map(|(i, v)| (i, v.iter().zip(query).map(|(a, b)| a * b).sum())).collect();
    s.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    s.truncate(k);
    s
}

/// recall@10 against exact search over `single`'s vectors, and how many self-queries have
/// the document itself (or a tie with it) first, for the segments at `path`.
fn quality(path: &Path, single: &Index, docs: &[Record]) -> (f64, usize) {
    let segs = Segments::open(path).unwrap();
    let all = single.vectors(Space::CodeCause).unwrap();
    let dim = single.dim();
    // ef 128: the synthetic records are four templates, so neighbourhoods are dense with
    // near-ties, and the one-shot graph alone sits near 0.98 at the default ef 64.
    let params = SearchParams { k: 10, ef_search: 128, ..SearchParams::default() };
    let (mut found, mut wanted, mut self_first) = (0usize, 0usize, 0usize);
    for (i, doc) in docs.iter().enumerate() {
        let q = &all[i * dim..(i + 1) * dim];
        let exact = exact_top(all, dim, q, 10);
        let cut = exact.last().unwrap().1;
        let truth: HashSet<&str> = exact.iter().map(|(r, _)| docs[*r].id.as_str()).collect();
        let hits = segs.search(q, &params).unwrap();
        assert_eq!(hits.len(), 10);
        let ids: Vec<String> = hits.iter().map(|h| segs.doc(*h).unwrap().id).collect();
        // A hit tied with the 10th exact score counts as found (ties may break either way).
        found += ids.iter().zip(&hits).filter(|(id, h)| truth.contains(id.as_str()) || h.score >= cut - 1e-6).count();
        wanted += 10;
        if ids[0] == doc.id || (hits[0].score - exact[0].1).abs() < 1e-6 && exact[0].1 - exact[1].1 < 1e-6 {
            self_first += 1;
        }
    }
    (found as f64 / wanted as f64, self_first)
}

#[test]
fn three_appends_answer_like_a_one_shot_build_and_compaction_keeps_it() {
    let dir = tempfile::tempdir().unwrap();
    let model = engine::testing::tiny_embedder();
    let docs = engine::testing::sample_records(900);
    let all = write_corpus(&dir.path().join("all.jsonl"), &docs);
    let single_path = dir.path().join("single.fdx");
    build_index(&BuildOptions::new(vec![all], single_path.clone()), &model, &NoProgress).unwrap();
    let single = Index::open(&single_path).unwrap();

    let grown = dir.path().join("grown.fdx");
    for (part, chunk) in docs.chunks(300).enumerate() {
        let corpus = write_corpus(&dir.path().join(format!("part{part}.jsonl")), chunk);
        let stats = append(&grown, BuildOptions::new(vec![corpus], PathBuf::new()), &model, &NoProgress).unwrap();
        assert_eq!(stats.build.indexed, 300, "part {part}");
        assert_eq!(stats.documents, 300 * (part as u64 + 1));
        assert_eq!(stats.segments, part + 1);
        assert_eq!(stats.segment.is_some(), part > 0, "the first append builds the file itself");
    }
    let segs = Segments::open(&grown).unwrap();
    assert_eq!(segs.indexes().len(), 3);
    assert_eq!(segs.len(), 900);
    segs.verify_manifest().unwrap();
    for ix in segs.indexes() {
        ix.verify().unwrap();
    }
    drop(segs);
    let seg_files = std::fs::read_dir(segments_dir(&grown)).unwrap().count();
    assert_eq!(seg_files, 3, "the first file hard-linked as seg 0, plus two appended segments");

    let (recall_single, self_single) = quality(&single_path, &single, &docs);
    let (recall_grown, self_grown) = quality(&grown, &single, &docs);
    assert!(recall_grown >= 0.99, "recall@10 of the appended index {recall_grown}");
    assert!(recall_single >= 0.99, "recall@10 of the one-shot index {recall_single}");
    eprintln!("recall@10 at ef 128: one-shot {recall_single:.4}, three appends {recall_grown:.4}");
    // Self-queries: the document itself first. HNSW is approximate and these clusters are
    // near-duplicates (four templates), so allow 0.5 % misses, for both builds alike.
    let at_least = docs.len() * 995 / 1000;
    assert!(self_grown >= at_least, "self-queries with the document itself first (appended): {self_grown}");
    assert!(self_single >= at_least, "self-queries with the document itself first (one-shot): {self_single}");

    // Compaction: one file, same answers.
    let compacted = dir.path().join("compacted.fdx");
    let stats = engine::compact::compact(&Segments::open(&grown).unwrap(), &compacted).unwrap();
    assert_eq!((stats.segments, stats.documents, stats.duplicate_ids), (3, 900, 0));
    let c = Index::open(&compacted).unwrap();
    c.verify().unwrap();
    assert_eq!(c.len(), 900);
    let (recall_c, self_c) = quality(&compacted, &single, &docs);
    assert!(recall_c >= 0.99, "recall@10 of the compacted index {recall_c}");
    assert!(self_c >= at_least, "self-queries with the document itself first (compacted): {self_c}");
    // Same documents, same vectors (no re-embedding), in append order.
    for row in [0u32, 299, 300, 899] {
        assert_eq!(c.doc(row).unwrap(), single.doc(row).unwrap());
    }
    assert_eq!(c.vectors(Space::CodeCause).unwrap(), single.vectors(Space::CodeCause).unwrap());
}

#[test]
fn an_append_skips_indexed_ids_and_leaves_the_index_alone_when_nothing_is_new() {
    let dir = tempfile::tempdir().unwrap();
    let model = engine::testing::tiny_embedder();
    let docs = engine::testing::sample_records(60);
    let base = write_corpus(&dir.path().join("base.jsonl"), &docs[..40]);
    let index = dir.path().join("idx.fdx");
    build_index(&BuildOptions::new(vec![base.clone()], index.clone()), &model, &NoProgress).unwrap();
    let before = std::fs::read(&index).unwrap();

    // Nothing new: no segment, the file is byte for byte the same.
    let stats = append(&index, BuildOptions::new(vec![base], PathBuf::new()), &model, &NoProgress).unwrap();
    assert_eq!((stats.build.already_indexed, stats.build.indexed, stats.segment), (40, 0, None));
    assert_eq!(std::fs::read(&index).unwrap(), before);

    // 30..60: ten already indexed, twenty new.
    let more = write_corpus(&dir.path().join("more.jsonl"), &docs[30..]);
    let stats = append(&index, BuildOptions::new(vec![more], PathBuf::new()), &model, &NoProgress).unwrap();
    assert_eq!((stats.build.already_indexed, stats.build.indexed, stats.documents), (10, 20, 60));
    let report = std::fs::read_to_string(dir.path().join("idx.fdx.report.jsonl")).unwrap();
    // The report keeps every append's lines: 40 from the first append, 10 from this one
    // (an append used to replace the index's build report with its own).
    assert_eq!(report.lines().filter(|l| l.contains("already-indexed")).count(), 50, "{report}");
    let segs = Segments::open(&index).unwrap();
    assert_eq!(segs.indexes().iter().map(Index::len).collect::<Vec<_>>(), vec![40, 20]);
    // The original file's bytes live on as segment 0 (a second name, not a rewrite).
    assert_eq!(std::fs::read(&segs.paths()[0]).unwrap(), before);
    for id in ["test:0", "test:39", "test:40", "test:59"] {
        assert!(segs.contains_id(id).unwrap(), "{id}");
    }
}

#[test]
fn an_append_with_another_model_is_refused_before_reading() {
    let dir = tempfile::tempdir().unwrap();
    let docs = engine::testing::sample_records(20);
    let corpus = write_corpus(&dir.path().join("c.jsonl"), &docs);
    let index = dir.path().join("idx.fdx");
    build_index(
        &BuildOptions::new(vec![corpus.clone()], index.clone()),
        &engine::testing::tiny_embedder(),
        &NoProgress,
    )
    .unwrap();
    let other = engine::testing::tiny_embedder_with_seed(99);
    let err = append(&index, BuildOptions::new(vec![corpus], PathBuf::new()), &other, &NoProgress).unwrap_err();
    assert!(err.to_string().contains("model mismatch"), "{err}");
    assert!(!segments_dir(&index).exists());
}

/// A new user's finding (session 41): renaming an appended index and its `.segments`
/// folder broke it ("app.fdx.segments/seg-000000.fdx: No such file"); a manifest moved
/// without its segments now says so.
#[test]
fn an_appended_index_renamed_with_its_segments_folder_still_opens() {
    let dir = tempfile::tempdir().unwrap();
    let model = engine::testing::tiny_embedder();
    let docs = engine::testing::sample_records(30);
    let index = dir.path().join("app.fdx");
    let base = write_corpus(&dir.path().join("base.jsonl"), &docs[..20]);
    build_index(&BuildOptions::new(vec![base], index.clone()), &model, &NoProgress).unwrap();
    let more = write_corpus(&dir.path().join("more.jsonl"), &docs[20..]);
    append(&index, BuildOptions::new(vec![more], PathBuf::new()), &model, &NoProgress).unwrap();
    let renamed = dir.path().join("corpus.fdx");
    std::fs::rename(&index, &renamed).unwrap();
    std::fs::rename(segments_dir(&index), segments_dir(&renamed)).unwrap();
    let segs = Segments::open(&renamed).unwrap();
    assert_eq!(segs.len(), 30);
    assert!(segs.paths().iter().all(|p| p.starts_with(segments_dir(&renamed))), "{:?}", segs.paths());
    // A manifest copied away from its segments names the missing one.
    let away = tempfile::tempdir().unwrap();
    let copy = away.path().join("corpus.fdx");
    std::fs::copy(&renamed, &copy).unwrap();
    let err = Segments::open(&copy).unwrap_err().to_string();
    assert!(err.contains("listed by the manifest") && err.contains("is missing"), "{err}");
}
