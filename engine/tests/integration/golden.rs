//! The committed indexes of each format version (scripts/make-fixtures.sh; STYLE 7: golden
//! fixtures per format version): v2 opens with this build and answers as it did when
//! written; v1 (fixdex 0.1.0, no repair actions) is refused with the rebuild message.

use std::path::{Path, PathBuf};

use engine::embed::Embedder;
use engine::{Error, Index, SearchParams, Space};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

#[test]
fn index_v2_opens_verifies_and_answers() {
    let index = Index::open(&fixture("index_v2.fdx")).unwrap();
    assert_eq!(index.format_version(), 2);
    assert_eq!((index.len(), index.dim()), (40, 32));
    assert_eq!(index.spaces(), vec![Space::CodeCause, Space::Code]);
    assert_eq!(index.meta().model.name, "tiny-bert");
    index.verify().unwrap();
    let docs = engine::testing::sample_records(40);
    assert_eq!(index.doc(39).unwrap(), docs[39]);
    // The repair actions come back as stored.
    let d0 = index.doc(0).unwrap();
    assert_eq!(
        (d0.action_label.as_str(), d0.actions.as_str()),
        (engine::testing::SAMPLE_ACTIONS[0].0, engine::testing::SAMPLE_ACTIONS[0].2)
    );
    assert_eq!(index.doc(1).unwrap().action_reason, "parse error");
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

#[test]
fn index_v1_is_refused_with_the_rebuild_message() {
    let e = Index::open(&fixture("index_v1.fdx")).unwrap_err();
    assert!(matches!(e, Error::Version { got: 1, oldest: 2, current: 2 }), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.starts_with("index format v1, this build reads v2..=v2; rebuild the index with fixdex ≥ 0.2.0"),
        "{msg}"
    );
    assert!(msg.contains("`fixdex index`"), "{msg}");
}
