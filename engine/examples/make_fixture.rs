//! Writes the golden index fixture of the current format, `engine/tests/data/index_v2.fdx`
//! (format v2), with the tiny test model: 40 synthetic records (with their repair actions,
//! `engine::testing::SAMPLE_ACTIONS`) in the `code+cause` and `code` spaces.
//!
//! Run through `scripts/make-fixtures.sh`. The test `golden::index_v2_opens_verifies_and_answers`
//! opens the committed file with the current build; keep it when the format changes (add a v3
//! beside it). `index_v1.fdx` was written by fixdex 0.1.0 with this example as it was then
//! (commit b12e676); it stays as the fixture of a refused old version.

use engine::embed::Embedder;
use engine::format::FORMAT_VERSION;
use engine::hnsw::{self, HnswConfig};
use engine::{IndexBuilder, Space};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args().nth(1).ok_or("usage: make_fixture OUT.fdx")?;
    let model = engine::testing::tiny_embedder();
    let docs = engine::testing::sample_records(40);
    let cfg = HnswConfig::default();
    let mut b = IndexBuilder::new(model.identity().to_meta(), engine::testing::text_meta());
    for space in [Space::CodeCause, Space::Code] {
        let v = engine::testing::embed_records(&model, &docs, space)?;
        let g = hnsw::build(&v, model.dim(), &cfg)?;
        b.add_space(space, v, g, &cfg)?;
    }
    b.write(out.as_ref(), &docs, serde_json::json!({ "fixture": format!("index_v{FORMAT_VERSION}") }))?;
    println!("wrote {out}");
    Ok(())
}
