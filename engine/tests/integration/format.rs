use engine::{Index, Space};

use crate::common::tiny_index;

#[test]
fn round_trip_documents_spaces_and_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("idx.fdx");
    let docs = engine::testing::sample_records(300);
    let index = tiny_index(&path, &docs, &[Space::CodeCause, Space::Code]);
    assert_eq!(index.len(), 300);
    assert_eq!(index.dim(), 32);
    assert_eq!(index.spaces(), vec![Space::CodeCause, Space::Code]);
    assert_eq!(index.meta().languages, vec!["java", "python"]);
    assert_eq!(index.meta().n_projects, 3);
    for row in [0u32, 1, 255, 256, 299] {
        assert_eq!(index.doc(row).unwrap(), docs[row as usize]);
    }
    assert_eq!(index.find_id("test:257").unwrap(), Some(257));
    assert_eq!(index.find_id("nope").unwrap(), None);
    let report = index.verify().unwrap();
    assert_eq!(report.documents, 300);
    assert_eq!(report.vectors, 600);
    assert!(report.edges > 300);
}

/// Contract test: the memory map and the in-memory twin answer identically.
#[test]
fn mmap_and_ram_twin_agree() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("idx.fdx");
    let docs = engine::testing::sample_records(120);
    let mapped = tiny_index(&path, &docs, &[Space::CodeCause]);
    let ram = Index::from_bytes(&std::fs::read(&path).unwrap()).unwrap();
    let q = mapped.vectors(Space::CodeCause).unwrap()[5 * 32..6 * 32].to_vec();
    let p = engine::SearchParams { k: 10, ..Default::default() };
    assert_eq!(mapped.search(&q, &p).unwrap(), ram.search(&q, &p).unwrap());
    assert_eq!(mapped.verify().unwrap(), ram.verify().unwrap());
    assert_eq!(mapped.doc(7).unwrap(), ram.doc(7).unwrap());
}

#[test]
fn failed_write_leaves_old_index_and_no_temp_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("idx.fdx");
    let docs = engine::testing::sample_records(50);
    tiny_index(&path, &docs, &[Space::CodeCause]);
    let before = std::fs::read(&path).unwrap();
    {
        let mut w = engine::format::IndexWriter::create(&path).unwrap();
        w.write_section(engine::format::SectionKind::Meta, None, 0, b"{}").unwrap();
        assert!(w.temp_path().exists());
        // dropped without commit, as when a build fails midway
    }
    assert_eq!(std::fs::read(&path).unwrap(), before);
    let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(leftovers.len(), 1, "{leftovers:?}");
    Index::open(&path).unwrap().verify().unwrap();
}

#[test]
fn empty_document_list_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let model = engine::testing::tiny_embedder();
    let b =
        engine::IndexBuilder::new(engine::embed::Embedder::identity(&model).to_meta(), engine::testing::text_meta());
    let err = b.write(&dir.path().join("x.fdx"), &[], serde_json::Value::Null).unwrap_err();
    assert!(matches!(err, engine::Error::Empty), "{err}");
    assert!(!dir.path().join("x.fdx").exists());
}

#[test]
fn docs_section_is_a_plain_arrow_ipc_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("idx.fdx");
    let docs = engine::testing::sample_records(10);
    let index = tiny_index(&path, &docs, &[Space::CodeCause]);
    let s = index.sections().find(engine::format::SectionKind::Docs, None, 0).unwrap();
    let bytes = std::fs::read(&path).unwrap()[s.range.clone()].to_vec();
    let reader = arrow_ipc::reader::FileReader::try_new(std::io::Cursor::new(bytes), None).unwrap();
    let rows: usize = reader.map(|b| b.unwrap().num_rows()).sum();
    assert_eq!(rows, 10);
}

/// Issue 8 item 8: an index with no documents (a shard that received no rows) is written
/// when allowed, opens, verifies, searches (no hits, HNSW, int8 and exact) and joins a
/// manifest, where the other segments answer.
#[test]
fn issue_8_empty_index_writes_opens_verifies_and_searches() {
    let dir = tempfile::tempdir().unwrap();
    let model = engine::testing::tiny_embedder();
    let cfg = engine::hnsw::HnswConfig::default();
    let graph = engine::hnsw::build(&[], 32, &cfg).unwrap();
    let mut b =
        engine::IndexBuilder::new(engine::embed::Embedder::identity(&model).to_meta(), engine::testing::text_meta())
            .with_int8(true)
            .allow_empty(true);
    b.add_space(Space::CodeCause, Vec::new(), graph, &cfg).unwrap();
    let empty = dir.path().join("empty.fdx");
    b.write(&empty, &[], serde_json::json!({})).unwrap();
    let index = Index::open(&empty).unwrap();
    assert_eq!((index.len(), index.is_empty(), index.dim()), (0, true, 32));
    let report = index.verify().unwrap();
    assert_eq!((report.documents, report.vectors, report.edges), (0, 0, 0));
    assert_eq!(index.find_id("test:1").unwrap(), None);
    let docs = engine::testing::sample_records(20);
    let q = engine::testing::embed_records(&model, &docs[..1], Space::CodeCause).unwrap();
    for exact in [false, true] {
        for int8 in [false, true] {
            let p = engine::SearchParams { exact, int8, ..Default::default() };
            assert!(index.search(&q, &p).unwrap().is_empty());
        }
    }
    let filtered = engine::SearchParams {
        filter: engine::Filter { exclude_ids: vec!["test:0".into()], ..Default::default() },
        ..Default::default()
    };
    assert!(index.search(&q, &filtered).unwrap().is_empty());

    let full = dir.path().join("full.fdx");
    tiny_index(&full, &docs, &[Space::CodeCause]);
    let manifest = dir.path().join("m.fdxm");
    let m = engine::Segments::write_manifest(&manifest, &[empty.clone(), full]).unwrap();
    assert_eq!(m.documents, 20);
    let segs = engine::Segments::open(&manifest).unwrap();
    let hits = segs.search(&q, &engine::SearchParams { exact: true, ..Default::default() }).unwrap();
    assert_eq!((hits[0].segment, segs.doc(hits[0]).unwrap().id.as_str()), (1, "test:0"));
    let only_empty = engine::Segments::open(&empty).unwrap();
    assert!(only_empty.search(&q, &engine::SearchParams::default()).unwrap().is_empty());
}

/// Issue 8 item 3: an output that cannot be created is found before any work, and the
/// error names the path given, never the temporary file.
#[test]
fn issue_8_output_check_names_the_path_given() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"x").unwrap();
    for path in [dir.path().join("missing/x.fdx"), file.join("x.fdx"), dir.path().to_path_buf()] {
        let err = engine::output::check(&path, &[]).unwrap_err().to_string();
        assert!(err.contains(&path.display().to_string()) && !err.contains(".tmp-"), "{err}");
        let err = engine::format::IndexWriter::create(&path).unwrap_err().to_string();
        assert!(err.contains(&path.display().to_string()) && !err.contains(".tmp-"), "{err}");
    }
    engine::output::check(&dir.path().join("ok.fdx"), &[]).unwrap();
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left.len(), 1, "the probe is removed: {left:?}");
}

/// Issue 8 item 4 (library level): an index read into memory keeps answering after its file
/// is truncated or rewritten in place (a memory map would die with SIGBUS), and its source
/// id tells the old file from the new one.
#[test]
fn issue_8_index_in_memory_survives_its_file_rewritten_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("idx.fdx");
    let docs = engine::testing::sample_records(80);
    let mapped = tiny_index(&path, &docs, &[Space::CodeCause]);
    let ram = Index::open_with(&path, engine::Load::Memory).unwrap();
    let id = *ram.source().unwrap();
    assert_eq!(mapped.source(), Some(&id));
    assert_eq!(engine::FileId::of(&path).unwrap(), id);

    let bytes = std::fs::read(&path).unwrap();
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.set_len(bytes.len() as u64 / 2).unwrap();
    drop(f);
    let now = engine::FileId::of(&path).unwrap();
    assert_ne!(now, id, "a truncation changes the id");
    assert_eq!(now.inode, id.inode);
    // Every byte of the in-memory copy is still there, the far end included.
    ram.verify().unwrap();
    assert_eq!(ram.doc(79).unwrap(), docs[79]);
    let err = Index::open_with(&path, engine::Load::Memory).unwrap_err();
    assert!(err.to_string().contains("truncated"), "{err}");

    // Published by rename: another inode.
    let tmp = dir.path().join("new.fdx");
    std::fs::write(&tmp, &bytes).unwrap();
    std::fs::rename(&tmp, &path).unwrap();
    let renamed = engine::FileId::of(&path).unwrap();
    assert_ne!(renamed.inode, id.inode);
    assert_eq!(Index::open_with(&path, engine::Load::Memory).unwrap().source(), Some(&renamed));
}
