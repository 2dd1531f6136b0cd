//! The committed v1 index (scripts/make-fixtures.sh) opens with this build and answers as
//! it did when written (STYLE 7: golden fixtures per format version).

use std::path::Path;

use engine::embed::Embedder;
use engine::{Index, SearchParams, Space};

#[test]
fn index_v1_still_opens_verifies_and_answers() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/index_v1.fdx");
    let index = Index::open(&path).unwrap();
    assert_eq!(index.format_version(), 1);
    assert_eq!((index.len(), index.dim()), (40, 32));
    assert_eq!(index.spaces(), vec![Space::CodeCause, Space::Code]);
    assert_eq!(index.meta().model.name, "tiny-bert");
    index.verify().unwrap();
    let docs = engine::testing::sample_records(40);
    assert_eq!(index.doc(39).unwrap(), docs[39]);
    // The tiny model of this build reproduces the stored embeddings.
    let model = engine::testing::tiny_embedder();
    for (i, d) in docs.iter().enumerate().step_by(7) {
        let q = model.embed_query(Space::CodeCause, &d.buggy_code, &d.root_cause).unwrap();
        let stored = &index.vectors(Space::CodeCause).unwrap()[i * 32..(i + 1) * 32];
        assert!(engine::distance::dot(&q, stored) > 0.9999, "record {i}");
        let hits = index.query(&model, &d.buggy_code, &d.root_cause, &SearchParams::default()).unwrap();
        assert_eq!(hits[0].row as usize, i);
    }
}
