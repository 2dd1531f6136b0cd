//! Embedding throughput on a JSONL file of snippets (`{"text": ...}` per line).
//!
//! `cargo run --release -p fixdex-engine --example embed_throughput -- MODEL_DIR SNIPPETS.jsonl [N] [BATCH_TOKENS]`
//! prints snippets/s, tokens/s and useful GFLOP/s (21.23 MFLOP/token + 9,216·L per token
//! for all-MiniLM-L6-v2, as in ../shared/baselines/RESULTS.md §1).

use std::io::BufRead;
use std::time::Instant;

use engine::Space;
use engine::embed::{BertEmbedder, Embedder, compose};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let model = BertEmbedder::load(args.get(1).ok_or("usage: MODEL_DIR SNIPPETS.jsonl [N] [BATCH_TOKENS]")?.as_ref())?;
    let n: usize = args.get(3).map_or(Ok(2000), |s| s.parse())?;
    let budget: usize = args.get(4).map_or(Ok(8192), |s| s.parse())?;
    let file = std::io::BufReader::new(std::fs::File::open(args.get(2).ok_or("missing SNIPPETS.jsonl")?)?);
    let texts: Vec<String> = file
        .lines()
        .take(n)
        .map(|l| Ok(serde_json::from_str::<serde_json::Value>(&l?)?["text"].as_str().unwrap_or("").to_string()))
        .collect::<Result<_, Box<dyn std::error::Error>>>()?;
    let t = Instant::now();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let toks = model.tokenize_batch(&refs)?;
    let seqs: Vec<Vec<u32>> = toks.iter().map(|t| compose(Space::Code, t, &[], model.identity(), 0)).collect();
    let tok_s = t.elapsed().as_secs_f64();
    let mut order: Vec<usize> = (0..seqs.len()).collect();
    order.sort_by_key(|&i| seqs[i].len());
    let t = Instant::now();
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && (end + 1 - start) * seqs[order[end]].len() <= budget && end - start < 64 {
            end += 1;
        }
        let batch: Vec<&[u32]> = order[start..end].iter().map(|&i| seqs[i].as_slice()).collect();
        model.embed_tokens(&batch)?;
        start = end;
    }
    let s = t.elapsed().as_secs_f64();
    let tokens: usize = seqs.iter().map(Vec::len).sum();
    let flops: f64 = seqs.iter().map(|q| q.len() as f64 * (21.23e6 + 9216.0 * q.len() as f64)).sum();
    println!(
        "{} snippets, {tokens} tokens: tokenize {tok_s:.2} s, embed {s:.2} s = {:.1} snippets/s, {:.0} tokens/s, {:.1} useful GFLOP/s",
        seqs.len(),
        seqs.len() as f64 / s,
        tokens as f64 / s,
        flops / s / 1e9
    );
    Ok(())
}
