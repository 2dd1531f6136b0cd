use engine::format::SectionKind;
use engine::{Error, Index, Space};

use crate::common::tiny_index;

fn built() -> (tempfile::TempDir, std::path::PathBuf, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("idx.fdx");
    tiny_index(&path, &engine::testing::sample_records(64), &[Space::CodeCause]);
    let bytes = std::fs::read(&path).unwrap();
    (dir, path, bytes)
}

#[test]
fn truncated_by_one_byte_is_refused_at_open() {
    let (_d, path, bytes) = built();
    std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
    let err = Index::open(&path).unwrap_err();
    assert!(matches!(err, Error::Corrupt(_)), "{err}");
    assert!(err.to_string().contains("truncated"), "{err}");
}

#[test]
fn flipped_byte_in_vectors_is_caught_by_verify() {
    let (_d, path, mut bytes) = built();
    let index = Index::from_bytes(&bytes).unwrap();
    let s = index.sections().find(SectionKind::Vectors, Some(0), 0).unwrap().range.clone();
    bytes[s.start + 101] ^= 0x10;
    std::fs::write(&path, &bytes).unwrap();
    let index = Index::open(&path).unwrap(); // open is O(1): it does not read vectors
    let err = index.verify().unwrap_err();
    assert!(
        err.to_string().contains("checksum mismatch in the vectors section (space 0 (code+cause), level 0"),
        "{err}"
    );
}

/// A new user's finding (session 41): one byte changed inside a document (`percentageValue`
/// → `PercentageValue`) was shown by `search` as the corpus's own diff. The documents'
/// checksum is now checked when they are first read.
#[test]
fn flipped_byte_in_a_document_is_refused_when_documents_are_read() {
    let (_d, path, mut bytes) = built();
    let index = Index::from_bytes(&bytes).unwrap();
    let s = index.sections().find(SectionKind::Docs, None, 0).unwrap().range.clone();
    let first = index.doc(0).unwrap();
    let needle = first.buggy_code.as_bytes();
    let at = bytes[s.clone()]
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("the document's code is stored verbatim");
    drop(index);
    bytes[s.start + at] ^= 0x20;
    std::fs::write(&path, &bytes).unwrap();
    let index = Index::open(&path).unwrap(); // open stays O(1)
    let err = index.doc(0).unwrap_err();
    assert!(matches!(err, Error::Corrupt(_)), "{err}");
    assert!(err.to_string().contains("checksum mismatch in the Docs section"), "{err}");
}

#[test]
fn every_single_byte_flip_is_detected_by_open_or_verify() {
    let (_d, _path, bytes) = built();
    // Flip one byte at 97 positions spread over the whole file.
    let step = bytes.len() / 97;
    for pos in (0..bytes.len()).step_by(step.max(1)) {
        let mut b = bytes.clone();
        b[pos] ^= 0x01;
        let ok = Index::from_bytes(&b).and_then(|i| i.verify());
        assert!(ok.is_err(), "flip at byte {pos} of {} went unnoticed", bytes.len());
    }
}

#[test]
fn header_damage_magic_and_version() {
    let (_d, _path, bytes) = built();
    let mut b = bytes.clone();
    b[0] = b'X';
    assert!(matches!(Index::from_bytes(&b).unwrap_err(), Error::NotAnIndex));
    // A newer format's header is whole: its checksum covers the version field.
    let mut b = bytes.clone();
    b[8] = 9; // version 9
    let crc = crc32c::crc32c(&b[..124]);
    b[124..128].copy_from_slice(&crc.to_le_bytes());
    let e = Index::from_bytes(&b).unwrap_err();
    assert!(e.to_string().contains("index format v9, this build reads v2..=v2"), "{e}");
    assert!(e.to_string().contains("written by a newer fixdex"), "{e}");
    // A damaged version byte is damage, not a newer fixdex.
    let mut b = bytes.clone();
    b[8] ^= 0x10;
    let e = Index::from_bytes(&b).unwrap_err();
    assert!(matches!(e, Error::Corrupt(_)), "{e}");
    assert!(e.to_string().contains("header checksum mismatch (its version field reads 18"), "{e}");
    let mut b = bytes;
    b[44] ^= 1; // n_docs, covered by the header CRC
    assert!(Index::from_bytes(&b).unwrap_err().to_string().contains("header checksum"));
    let empty = Index::from_bytes(b"").unwrap_err();
    assert!(matches!(empty, Error::Corrupt(_)) && empty.to_string().contains("the file is empty (0 bytes)"), "{empty}");
    assert!(matches!(Index::from_bytes(b"FIX").unwrap_err(), Error::NotAnIndex));
    assert!(matches!(Index::from_bytes(b"FIXDEXIX").unwrap_err(), Error::Corrupt(_)));
}

#[test]
fn not_an_index_and_missing_file() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("corpus.jsonl");
    std::fs::write(&p, "{\"id\": 1}\n").unwrap();
    assert!(matches!(Index::open(&p).unwrap_err(), Error::NotAnIndex));
    let e = Index::open(&d.path().join("missing.fdx")).unwrap_err();
    assert!(e.to_string().contains("missing.fdx"), "{e}");
}

#[test]
fn query_with_another_model_is_refused() {
    let (_d, path, _) = built();
    let index = Index::open(&path).unwrap();
    let other = engine::testing::tiny_embedder_with_seed(99);
    let err = index.query(&other, "int f() {}", "cause", &Default::default()).unwrap_err();
    assert!(matches!(err, Error::ModelMismatch { .. }), "{err}");
    assert!(err.to_string().contains("--model"), "{err}");
}

#[test]
fn missing_space_is_named() {
    let (_d, path, _) = built();
    let index = Index::open(&path).unwrap();
    let model = engine::testing::tiny_embedder();
    let p = engine::SearchParams { space: Space::Code, ..Default::default() };
    let err = index.query(&model, "x", "", &p).unwrap_err();
    assert!(
        err.to_string().starts_with(
            "the index has no vector space `code`; it has: code+cause (build it with `fixdex index --spaces`"
        ),
        "{err}"
    );
}
