use engine::Space;
use engine::embed::{BertEmbedder, Embedder};

use crate::common::real_model_dir;

fn model() -> BertEmbedder {
    BertEmbedder::load(&real_model_dir()).unwrap()
}

fn cos(a: &[f32], b: &[f32]) -> f32 {
    engine::distance::dot(a, b)
}

#[test]
fn real_model_settings_come_from_sentence_transformers_files() {
    let m = model();
    let id = m.identity();
    assert_eq!((id.dim, id.max_seq_length, id.pooling), (384, 256, engine::embed::Pooling::Mean));
    assert_eq!((id.cls_id, id.sep_id), (101, 102));
    assert_eq!(id.name, "all-MiniLM-L6-v2");
    // The tokenizer's baked-in truncation (128) and padding (128) are overridden.
    let long = "x = 1\n".repeat(200);
    assert_eq!(m.tokenize(&long).unwrap().len(), 600);
    assert_eq!(m.tokenize("return a[i];").unwrap().len(), 6);
}

#[test]
fn embeddings_are_unit_vectors_and_batch_independent() {
    let m = model();
    let texts = ["int add(int a, int b) { return a - b; }", "def f(xs):\n    return xs[len(xs)]", "null"];
    let batch = m.embed_texts(&texts).unwrap();
    for (t, v) in texts.iter().zip(&batch) {
        assert_eq!(v.len(), 384);
        assert!((cos(v, v) - 1.0).abs() < 1e-5);
        let single = m.embed_texts(&[t]).unwrap().remove(0);
        assert!(cos(v, &single) > 0.99999, "padding changed the embedding of {t:?}");
    }
    assert!(cos(&batch[0], &batch[1]) < 0.95);
}

#[test]
fn over_long_inputs_are_truncated_by_the_rule_not_rejected() {
    let m = model();
    let mut code = String::from("public int f(int[] a) {\n");
    while code.len() < 200_000 {
        code.push_str("    total += a[i] * weight;\n");
    }
    let cause = "word ".repeat(10_000); // 10,000 tokens
    for space in Space::ALL {
        let ids = m.compose_text(space, &code, &cause).unwrap();
        assert_eq!(ids.len(), 256, "{space}");
        let v = m.embed_query(space, &code, &cause).unwrap();
        assert!((cos(&v, &v) - 1.0).abs() < 1e-5);
    }
    // code+cause keeps the first 64 cause tokens, then [SEP], then code.
    let ids = m.compose_text(Space::CodeCause, &code, &cause).unwrap();
    let word = m.tokenize("word").unwrap()[0];
    assert!(ids[1..65].iter().all(|&t| t == word));
    assert_eq!(ids[65], 102);
    assert_eq!(ids[66], m.tokenize("public").unwrap()[0]);
}

#[test]
fn root_cause_moves_the_code_cause_embedding() {
    let m = model();
    let code = "for (int i = 0; i <= arr.length; i++) { sum += arr[i]; }";
    let a = m.embed_query(Space::CodeCause, code, "the loop runs one index past the end of the array").unwrap();
    let b = m.embed_query(Space::CodeCause, code, "a null reference is dereferenced").unwrap();
    let c = m.embed_query(Space::Code, code, "ignored").unwrap();
    assert!(cos(&a, &b) < 0.99);
    assert_eq!(c, m.embed_query(Space::Code, code, "").unwrap());
}

/// Contract test: the fast encoder and the candle reference BertModel (`embed::candle_bert`) agree.
#[test]
fn fast_encoder_matches_candle_reference() {
    let fast = model();
    let reference = BertEmbedder::load_with(&real_model_dir(), engine::embed::Backend::Candle).unwrap();
    assert_eq!(fast.identity(), reference.identity());
    let mut texts: Vec<String> =
        (0..40).map(|i| format!("int f{i}(int[] a) {{ return a[{i}] + {}; }}", "x".repeat(i * 7))).collect();
    texts.push("def g():\n    pass".into());
    texts.push("tokens ".repeat(400)); // longer than the window: truncated to 256
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let (a, b) = (fast.embed_texts(&refs).unwrap(), reference.embed_texts(&refs).unwrap());
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        assert!(cos(x, y) > 0.99999, "text {i}: cosine {}", cos(x, y));
    }
    // bf16 projections: same identity (same weights), cosine > 0.999 on every text.
    if engine::embed::bf16::available() {
        let half = BertEmbedder::load_with(&real_model_dir(), engine::embed::Backend::FastBf16).unwrap();
        assert_eq!(half.identity(), reference.identity());
        for (i, (x, y)) in half.embed_texts(&refs).unwrap().iter().zip(&b).enumerate() {
            assert!(cos(x, y) > 0.999, "text {i}: bf16 cosine {}", cos(x, y));
        }
    }
}

/// Issue 11 item 4: for a 160-line method whose bug is near the end, rule
/// `cause-first-window-v1` composes (and embeds) the signature and the lines around the
/// bug, not the first 254 tokens; without buggy lines, or for a short method, both rules
/// compose the same tokens.
#[test]
fn window_rule_embeds_the_buggy_region_of_a_long_method() {
    use engine::embed::{LineRange, Rule};
    let m = model();
    let mut code = String::from("public int score(int[] values) {\n");
    for j in 0..155 {
        code += &format!("    audit.record(\"value {j}\", values.length);\n");
    }
    code += "    int best = values[values.length];\n    return best;\n}\n";
    let bug = LineRange::new(157, 157).unwrap();
    let compose = |rule, lines| m.compose_by_rule(rule, Space::Code, (&code, ""), lines, 64).unwrap();
    let (old, new) = (compose(Rule::CauseFirst, Some(bug)), compose(Rule::CauseFirstWindow, Some(bug)));
    assert_eq!(old.len(), 256);
    assert!(new.len() > 230 && new.len() <= 256, "the window fills the budget up to a line: {}", new.len());
    let has = |seq: &[u32], text: &str| {
        let t = m.tokenize(text).unwrap();
        seq.windows(t.len()).any(|w| w == t.as_slice())
    };
    let line = "int best = values[values.length];";
    assert!(!has(&old, line) && has(&new, line));
    assert!(has(&new, "public int score(int[] values) {"), "the signature comes first");
    assert_eq!(compose(Rule::CauseFirstWindow, None), old, "unknown lines: the old tokens");
    let short = "int f(int[] a) {\n  return a[a.length];\n}\n";
    let two = |rule| m.compose_by_rule(rule, Space::CodeCause, (short, "off by one"), Some(bug), 64).unwrap();
    assert_eq!(two(Rule::CauseFirst), two(Rule::CauseFirstWindow), "a short method embeds the same");
    // The vectors differ, and the window's is closer to the buggy region alone.
    let v = |ids: &[u32]| m.embed_tokens(&[ids]).unwrap().remove(0);
    let region =
        m.embed_query(Space::Code, "    int best = values[values.length];\n    return best;\n}\n", "").unwrap();
    let (vo, vn) = (v(&old), v(&new));
    assert!(cos(&vo, &vn) < 0.99, "{}", cos(&vo, &vn));
    assert!(cos(&vn, &region) > cos(&vo, &region) + 0.05, "{} vs {}", cos(&vn, &region), cos(&vo, &region));
}
