//! Fuzz tests of the index reader (issue 8): damaged copies of a small valid index go
//! through `Index::from_bytes`, `verify`, every accessor and search
//! (`engine::testing::fuzz::exercise`). Seeds are fixed; `FIXDEX_FUZZ_CASES=N` and
//! `FIXDEX_FUZZ_SEED=S` run more or other cases (docs/fuzzing.md).

use std::cell::RefCell;

use engine::Index;
use engine::format::SectionKind;
use engine::testing::fuzz::{
    self, OP_LEN, Outcome, apply_program, exercise, reseal, set_ipc_buffer, small_index, write_seed,
};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};

/// A runner with the fixed (or `FIXDEX_FUZZ_SEED`) seed, `default_cases` cases (or
/// `FIXDEX_FUZZ_CASES`), and no regression files written.
fn runner(default_cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases: fuzz::cases(default_cases),
        rng_seed: RngSeed::Fixed(fuzz::seed()),
        failure_persistence: None,
        ..Config::default()
    })
}

/// The bytes of the small valid index.
fn base() -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    small_index(dir.path()).unwrap()
}

/// Damage programs of `ops` operations whose opcodes come from `opcodes`; `flag` is the
/// first byte (even: reseal at the end).
fn programs(flag: impl Strategy<Value = u8>, opcodes: &'static [u8], ops: usize) -> impl Strategy<Value = Vec<u8>> {
    let op = (prop::sample::select(opcodes), vec(any::<u8>(), OP_LEN - 1));
    (flag, vec(op, 1..=ops)).prop_map(|(flag, ops)| {
        let mut p = vec![flag];
        for (code, operands) in ops {
            p.push(code);
            p.extend(operands);
        }
        p
    })
}

/// Runs `exercise` on every program; returns how many were refused, damaged, verified.
/// A program that leaves the file unchanged counts as verified; with `stale` (programs
/// that never reseal), a changed file must not verify.
fn run_programs(cases: u32, stale: bool, strategy: impl Strategy<Value = Vec<u8>>) -> [usize; 3] {
    let base = base();
    let counts = RefCell::new([0; 3]);
    runner(cases)
        .run(&strategy, |program| {
            let damaged = apply_program(&base, &program);
            let outcome = if damaged == base { Outcome::Verified } else { exercise(&damaged) };
            assert!(!stale || damaged == base || outcome != Outcome::Verified, "{program:?} verified");
            counts.borrow_mut()[outcome as usize] += 1;
            Ok(())
        })
        .unwrap();
    counts.into_inner()
}

/// The harness sees the valid index as valid, and resealing it changes nothing (with
/// `FIXDEX_FUZZ_SEEDS=DIR`, the index and a few programs become cargo-fuzz seeds).
#[test]
fn fuzz_seeds_valid_index_verifies() {
    let base = base();
    let mut copy = base.clone();
    reseal(&mut copy);
    assert_eq!(copy, base, "resealing a valid index changes nothing");
    assert_eq!(exercise(&base), Outcome::Verified);
    assert_eq!(exercise(&apply_program(&base, &[0])), Outcome::Verified, "the empty program");
    write_seed("index_bytes", "small.fdx", &base);
    let header = [0, 1, 7, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    let vector = [3, 2, 9, 0, 0, 0, 4, 0, 2, 0, 0, 0, 0, 0, 0, 0];
    for (name, program) in [
        ("empty", vec![0]),
        ("raw", vec![1]),
        ("header", [&[0][..], &header].concat()),
        ("vector", [&[0][..], &vector].concat()),
    ] {
        write_seed("index_damage", name, &program);
    }
}

/// Raw damage: byte flips, truncation and extension, checksums left stale.
#[test]
fn fuzz_index_raw_bytes() {
    run_programs(1000, true, programs(Just(1), &[0, 5, 6], 3));
}

/// Header and section-table fields set to boundary values, then resealed.
#[test]
fn fuzz_index_header_and_section_table() {
    let counts = run_programs(3000, false, programs(Just(0), &[1, 2, 7, 8], 2));
    assert!(counts[1] > 0, "some damage should pass open and fail verify: {counts:?}");
}

/// Section contents (vectors, codes, graph offsets and neighbours, node lists, id hashes,
/// per-document tables, the Arrow document store) and metadata values, then resealed.
#[test]
fn fuzz_index_section_contents_and_metadata() {
    let counts = run_programs(3000, false, programs(Just(0), &[3, 3, 3, 4], 3));
    let opened = counts[1] + counts[2];
    assert!(opened * 4 >= counts.iter().sum(), "most content damage passes open, for verify and search: {counts:?}");
}

/// Any mix of operations, resealed or not.
#[test]
fn fuzz_index_any_damage() {
    run_programs(3000, false, programs(any::<u8>(), &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 4));
}

/// Arbitrary bytes, with and without the magic in front.
#[test]
fn fuzz_index_arbitrary_bytes() {
    let strategy = (any::<bool>(), vec(any::<u8>(), 0..600)).prop_map(|(magic, mut bytes)| {
        if magic {
            bytes.splice(0..0, *b"FIXDEXIX\x01\x00\x00\x00\x80\x00\x00\x00");
        }
        bytes
    });
    runner(2000)
        .run(&strategy, |bytes| {
            assert_eq!(exercise(&bytes), Outcome::Refused);
            Ok(())
        })
        .unwrap();
}

/// The small index with buffer `buffer` of the first document batch damaged (offset, or
/// length with `length`), resealed so that `open` accepts it.
fn damaged_docs_batch(buffer: usize, length: bool, value: i64) -> Index {
    let mut bytes = base();
    let docs = Index::from_bytes(&bytes).unwrap().sections().find(SectionKind::Docs, None, 0).unwrap().range.clone();
    assert!(set_ipc_buffer(&mut bytes[docs], buffer, length, value), "the document store has a record batch");
    reseal(&mut bytes);
    Index::from_bytes(&bytes).unwrap()
}

/// Issue 8, found by `fuzz_index_any_damage`: a document batch whose buffer lies outside
/// its message body (checksums resealed, so `open` accepts the file) made arrow-ipc panic
/// in `Index::doc`, so in every search that shows that document. It is now a corrupt-file
/// error, which `verify` reports too.
#[test]
fn issue_8_fuzz_docs_buffer_outside_its_body() {
    let index = damaged_docs_batch(0, false, 1 << 40);
    let err = index.doc(0).unwrap_err();
    assert!(matches!(err, engine::Error::Corrupt(_)), "{err}");
    assert!(err.to_string().contains("buffer 0 (offset 1099511627776, 0 bytes) lies outside the"), "{err}");
    assert!(index.verify().unwrap_err().to_string().contains("document batch 0"));
}

/// Issue 8, found by `fuzz_index_any_damage`: an offsets buffer whose length is not a
/// multiple of 4 made arrow-data panic while validating the batch. It is now a
/// corrupt-file error.
#[test]
fn issue_8_fuzz_docs_offsets_not_whole() {
    let index = damaged_docs_batch(1, true, 4 * 13 + 1);
    let err = index.doc(0).unwrap_err();
    assert!(matches!(err, engine::Error::Corrupt(_)), "{err}");
    assert!(err.to_string().starts_with("corrupt index: document batch 0: the Arrow decoder failed"), "{err}");
    assert!(index.verify().is_err());
}

/// Issue 8, found by `fuzz_index_section_contents_and_metadata`: an index whose recorded
/// model hash holds multi-byte characters made the model check panic while shortening the
/// hash for its message (`&sha256[..12]` inside a character). It is now a model mismatch.
#[test]
fn issue_8_fuzz_model_hash_not_ascii() {
    let mut bytes = base();
    let index = Index::from_bytes(&bytes).unwrap();
    let mut meta = serde_json::to_value(index.meta()).unwrap();
    meta["model"]["sha256"] = "a€€€€€".into();
    let entry = index.sections().iter().position(|s| s.kind == SectionKind::Meta).unwrap();
    drop(index);
    fuzz::relocate_section(&mut bytes, entry, meta.to_string().as_bytes());
    reseal(&mut bytes);
    let index = Index::from_bytes(&bytes).unwrap();
    let err = index.check_model(&engine::testing::tiny_embedder()).unwrap_err();
    assert!(matches!(err, engine::Error::ModelMismatch { .. }), "{err}");
    assert!(err.to_string().contains("a€€€€"), "{err}");
}

/// Issue 8, found by `fuzz_index_section_contents_and_metadata`: a project count near
/// `usize::MAX` in the metadata overflowed `(n_projects + 1) * 4` at open (a panic in
/// debug builds, a wrapped length in release). It is now a corrupt-file error.
#[test]
fn issue_8_fuzz_project_count_overflows() {
    for n_projects in [u64::MAX, u64::MAX / 4] {
        let mut bytes = base();
        let index = Index::from_bytes(&bytes).unwrap();
        let mut meta = serde_json::to_value(index.meta()).unwrap();
        meta["n_projects"] = n_projects.into();
        let entry = index.sections().iter().position(|s| s.kind == SectionKind::Meta).unwrap();
        drop(index);
        fuzz::relocate_section(&mut bytes, entry, meta.to_string().as_bytes());
        reseal(&mut bytes);
        let err = Index::from_bytes(&bytes).unwrap_err();
        assert!(matches!(err, engine::Error::Corrupt(_)), "{err}");
        assert!(err.to_string().contains("project"), "{err}");
    }
}
