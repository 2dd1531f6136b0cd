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
