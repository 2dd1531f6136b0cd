//! [`Encoder`]: a padding-free BERT forward pass on the CPU.
//!
//! The weights are candle's (loaded by [`super::BertEmbedder`]); the computation is ours:
//! the tokens of a whole batch are packed into one `[T, H]` matrix (no padding, no masks),
//! the four projections per layer run as single large GEMMs (faer, all rayon threads, runtime
//! SIMD dispatch), attention runs per sequence on the rayon pool with per-head GEMMs over
//! strided views of the packed QKV matrix, and bias, GELU, residual and LayerNorm are fused
//! into single passes over the rows. The mathematics is that of Hugging Face's `BertModel`
//! (Devlin et al. 2019; `modeling_bert.py`) with exact (erf) GELU; results agree with the
//! candle reference ([`super::candle_bert`], ported from candle-transformers) to cosine >
//! 0.99999 (tested).
//!
//! Shapes: `H` hidden size, `I` intermediate size, `T` tokens in the batch, `L` one
//! sequence's length, `d = H / heads`.

use super::candle_bert::{Config, HiddenAct};
use bytes::Bytes;
use candle_core::safetensors::{Load, SliceSafetensors};
use candle_core::{DType, Device};
use candle_nn::VarBuilder;
use faer::linalg::matmul::matmul;
use faer::{Accum, MatMut, MatRef, Par};
use rayon::prelude::*;
use zerocopy::FromBytes;

use super::Pooling;
use super::bf16::{self, PackedB};
use super::kernels::{self, elementwise};
use crate::{Error, Result};

/// One transformer layer's weights; matrices are `[in, out]` row-major.
struct Layer {
    // Weights in PyTorch's `Linear` layout, `[out, in]` row-major, used as transposed views
    // (no transposed copy at load: a query pays for no copy of the mapped matrices).
    qkv_w: [Weights; 3], // [H, H] each: query, key, value
    qkv_b: Vec<f32>,     // [3H]: query | key | value
    out_w: Weights,      // [H, H]
    out_b: Vec<f32>,
    ln1: (Vec<f32>, Vec<f32>),
    up_w: Weights, // [I, H]
    up_b: Vec<f32>,
    down_w: Weights, // [H, I]
    down_b: Vec<f32>,
    ln2: (Vec<f32>, Vec<f32>),
    /// The four matrices rounded to bf16 and packed (qkv, out, up, down), when the encoder
    /// runs its projections in bf16 ([`super::bf16`]).
    packed: Option<Box<[PackedB; 4]>>,
}

/// Activations of one forward pass, reused by every layer and, through [`BUFFERS`], by
/// every forward pass on the same thread (fresh multi-megabyte buffers per group cost the
/// kernel's page zeroing: ~5 % of the encoder's time in a profile). Every element is
/// written before it is read, so stale contents never leak.
#[derive(Default)]
struct Buffers {
    qkv: Vec<f32>, // [T, 3H] (bf16: one fused projection) or [3, T, H] (f32: three)
    ctx: Vec<f32>, // [T, H]
    tmp: Vec<f32>, // [T, H]
    up: Vec<f32>,  // [T, I]
}

/// A BERT encoder with mean or CLS pooling and L2 normalisation.
pub struct Encoder {
    hidden: usize,
    heads: usize,
    inter: usize,
    eps: f32,
    word: Weights,   // [V, H]
    pos: Weights,    // [P, H]
    type0: Vec<f32>, // [H]: token type 0 (all inputs use type 0)
    emb_ln: (Vec<f32>, Vec<f32>),
    layers: Vec<Layer>,
    pooling: Pooling,
}

impl std::fmt::Debug for Encoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Encoder")
            .field("hidden", &self.hidden)
            .field("layers", &self.layers.len())
            .finish_non_exhaustive()
    }
}

/// A row-major f32 tensor: an owned copy, or a view of the memory-mapped safetensors file
/// (no copy: a page is read from the page cache when a row on it is first touched; the
/// embedding tables are used this way, where a query touches a few rows of 30k).
enum Weights {
    Owned(Vec<f32>),
    /// Little-endian f32 bytes at a 4-byte-aligned address (checked when made).
    Mapped(Bytes),
}

impl std::ops::Deref for Weights {
    type Target = [f32];

    fn deref(&self) -> &[f32] {
        match self {
            Weights::Owned(v) => v,
            Weights::Mapped(b) => <[f32]>::ref_from_bytes(b).expect("alignment and size checked when mapped"),
        }
    }
}

/// Where [`Encoder`] reads its tensors (full dotted names, as in the safetensors file).
enum Source<'a, 'b> {
    /// A candle `VarBuilder` (the tiny test model, or weights already in candle): every tensor
    /// is copied out of candle.
    Candle(&'a VarBuilder<'b>),
    /// A safetensors file held in `bytes` (memory-mapped by [`super::BertEmbedder::load`]):
    /// little-endian f32 tensors at 4-byte-aligned offsets are viewed in place, others are
    /// converted to f32 copies.
    Mapped { bytes: &'a Bytes, st: SliceSafetensors<'a> },
}

impl Source<'_, '_> {
    fn contains(&self, name: &str) -> bool {
        match self {
            Source::Candle(vb) => vb.contains_tensor(name),
            Source::Mapped { st, .. } => st.get(name).is_ok(),
        }
    }

    /// Tensor `name`, which must have `shape`, as row-major f32.
    fn tensor(&self, shape: &[usize], name: &str) -> Result<Weights> {
        match self {
            Source::Candle(vb) => {
                Ok(Weights::Owned(vb.get(shape, name)?.to_dtype(DType::F32)?.flatten_all()?.to_vec1()?))
            }
            Source::Mapped { bytes, st } => {
                let view = st.get(name)?;
                if view.shape() != shape {
                    return Err(candle_core::Error::UnexpectedShape {
                        msg: format!("shape mismatch for {name}"),
                        expected: shape.into(),
                        got: view.shape().into(),
                    }
                    .bt()
                    .into());
                }
                let data = view.data();
                let in_place = DType::try_from(view.dtype())? == DType::F32
                    && cfg!(target_endian = "little")
                    && <[f32]>::ref_from_bytes(data).is_ok();
                if in_place {
                    return Ok(Weights::Mapped(bytes.slice_ref(data)));
                }
                let t = view.load(&Device::Cpu)?.to_dtype(DType::F32)?;
                Ok(Weights::Owned(t.flatten_all()?.to_vec1()?))
            }
        }
    }
}

/// Reads tensor `name` of `shape` as a flat f32 vector (a copy).
fn get(src: &Source<'_, '_>, shape: &[usize], name: &str) -> Result<Vec<f32>> {
    Ok(src.tensor(shape, name)?.to_vec())
}

/// A Linear layer's weight `[out, in]` (a view of the mapped file where possible) and its
/// bias.
fn linear(src: &Source<'_, '_>, inp: usize, out: usize, name: &str) -> Result<(Weights, Vec<f32>)> {
    let w = src.tensor(&[out, inp], &format!("{name}.weight"))?;
    Ok((w, get(src, &[out], &format!("{name}.bias"))?))
}

/// LayerNorm weight and bias (`weight`/`bias`, or the older `gamma`/`beta`).
fn layer_norm(src: &Source<'_, '_>, h: usize, name: &str) -> Result<(Vec<f32>, Vec<f32>)> {
    let g = get(src, &[h], &format!("{name}.weight")).or_else(|_| get(src, &[h], &format!("{name}.gamma")))?;
    let b = get(src, &[h], &format!("{name}.bias")).or_else(|_| get(src, &[h], &format!("{name}.beta")))?;
    Ok((g, b))
}

impl Encoder {
    /// Loads the weights of a Hugging Face `BertModel` (with or without a `bert.` prefix)
    /// from a candle `VarBuilder`, copying every tensor. With `bf16`, the four projection
    /// matrices of every layer are also rounded to bf16 and packed ([`super::bf16`]; +2
    /// bytes per weight), and the projections run in bf16; attention, norms and GELU stay
    /// f32.
    ///
    /// # Errors
    /// [`Error::Model`] for an activation other than exact GELU, or for `bf16` on a CPU
    /// without AVX512_BF16; [`Error::Candle`] when a tensor is missing or has the wrong shape.
    pub fn load(vb: &VarBuilder<'_>, cfg: &Config, pooling: Pooling, bf16: bool) -> Result<Encoder> {
        Encoder::load_from(&Source::Candle(vb), cfg, pooling, bf16)
    }

    /// [`Encoder::load`] from the bytes of a `model.safetensors` file, typically
    /// memory-mapped ([`crate::storage::map_file`]): the word and position embedding tables
    /// (little-endian f32 at 4-byte-aligned offsets, as safetensors writers align them) stay
    /// views of `weights`, which the encoder keeps alive; the projection matrices are
    /// transposed into owned `[in, out]` copies (one pass each, layers in parallel). For
    /// all-MiniLM-L6-v2: 44 of its 91 MB copied instead of 91 MB read, copied twice and
    /// transposed.
    ///
    /// # Errors
    /// As [`Encoder::load`]; [`Error::Candle`] also when `weights` is not a safetensors file.
    pub fn load_safetensors(weights: &Bytes, cfg: &Config, pooling: Pooling, bf16: bool) -> Result<Encoder> {
        let st = SliceSafetensors::new(weights)?;
        Encoder::load_from(&Source::Mapped { bytes: weights, st }, cfg, pooling, bf16)
    }

    fn load_from(src: &Source<'_, '_>, cfg: &Config, pooling: Pooling, bf16: bool) -> Result<Encoder> {
        if bf16 && !bf16::available() {
            return Err(Error::Model {
                path: "config.json".into(),
                reason: "bf16 precision needs a CPU with AVX512F and AVX512_BF16; use f32".into(),
            });
        }
        if cfg.hidden_act != HiddenAct::Gelu || !cfg.hidden_size.is_multiple_of(cfg.num_attention_heads) {
            return Err(Error::Model {
                path: "config.json".into(),
                reason: "the fast encoder supports hidden_act \"gelu\" and heads dividing hidden_size".into(),
            });
        }
        let p = if src.contains("bert.embeddings.word_embeddings.weight") { "bert." } else { "" };
        let (h, i) = (cfg.hidden_size, cfg.intermediate_size);
        let e = format!("{p}embeddings");
        let layers = (0..cfg.num_hidden_layers)
            .into_par_iter()
            .map(|l| Encoder::load_layer(src, &format!("{p}encoder.layer.{l}"), h, i, bf16))
            .collect::<Result<Vec<_>>>()?;
        Ok(Encoder {
            hidden: h,
            heads: cfg.num_attention_heads,
            inter: i,
            eps: cfg.layer_norm_eps as f32,
            word: src.tensor(&[cfg.vocab_size, h], &format!("{e}.word_embeddings.weight"))?,
            pos: src.tensor(&[cfg.max_position_embeddings, h], &format!("{e}.position_embeddings.weight"))?,
            type0: get(src, &[cfg.type_vocab_size, h], &format!("{e}.token_type_embeddings.weight"))?[..h].to_vec(),
            emb_ln: layer_norm(src, h, &format!("{e}.LayerNorm"))?,
            layers,
            pooling,
        })
    }

    /// Layer `name` (`[bert.]encoder.layer.<l>`) with hidden size `h` and intermediate `i`.
    fn load_layer(src: &Source<'_, '_>, name: &str, h: usize, i: usize, bf16: bool) -> Result<Layer> {
        let mut qkv_b = Vec::with_capacity(3 * h);
        let mut part = |p: &str| -> Result<Weights> {
            qkv_b.extend(get(src, &[h], &format!("{name}.attention.self.{p}.bias"))?);
            src.tensor(&[h, h], &format!("{name}.attention.self.{p}.weight"))
        };
        let qkv_w = [part("query")?, part("key")?, part("value")?];
        let (out_w, out_b) = linear(src, h, h, &format!("{name}.attention.output.dense"))?;
        let (up_w, up_b) = linear(src, h, i, &format!("{name}.intermediate.dense"))?;
        let (down_w, down_b) = linear(src, i, h, &format!("{name}.output.dense"))?;
        let packed = bf16.then(|| {
            Box::new([
                PackedB::pack_transposed_rows(qkv_w.iter().flat_map(|w| w.chunks_exact(h)), 3 * h, h),
                PackedB::pack_transposed(&out_w, h, h),
                PackedB::pack_transposed(&up_w, i, h),
                PackedB::pack_transposed(&down_w, h, i),
            ])
        });
        Ok(Layer {
            packed,
            qkv_w,
            qkv_b,
            out_w,
            out_b,
            ln1: layer_norm(src, h, &format!("{name}.attention.output.LayerNorm"))?,
            up_w,
            up_b,
            down_w,
            down_b,
            ln2: layer_norm(src, h, &format!("{name}.output.LayerNorm"))?,
        })
    }

    /// Embeds complete token sequences: `b` sequences in, `b` L2-normalised vectors of
    /// `H` floats out. Sequences must be non-empty and fit the position table (checked by
    /// the caller). Cost: about `21 · H² · T` FLOPs plus `4 · H · ΣL²` for attention.
    pub fn embed(&self, batch: &[&[u32]]) -> Vec<Vec<f32>> {
        let groups = group_by_tokens(batch, GROUP_TOKENS, rayon::current_num_threads());
        if groups.len() <= 1 {
            return self.embed_group(batch, true);
        }
        let per_group: Vec<Vec<Vec<f32>>> = groups.into_par_iter().map(|g| self.embed_group(g, false)).collect();
        per_group.into_iter().flatten().collect()
    }

    /// The forward pass over one packed group of sequences. `parallel`: spread each GEMM and
    /// row loop over the rayon pool (one group, e.g. a single query) or run everything on
    /// this thread (many groups, already spread over the pool).
    fn embed_group(&self, batch: &[&[u32]], parallel: bool) -> Vec<Vec<f32>> {
        let lens: Vec<usize> = batch.iter().map(|s| s.len()).collect();
        let mut x = self.embeddings(batch, parallel);
        let t = lens.iter().sum::<usize>();
        let mut run = |buf: &mut Buffers| {
            let (h, i) = (self.hidden, self.inter);
            for (v, n) in
                [(&mut buf.qkv, t * 3 * h), (&mut buf.ctx, t * h), (&mut buf.tmp, t * h), (&mut buf.up, t * i)]
            {
                v.resize(n, 0.0);
            }
            for layer in &self.layers {
                self.layer(layer, &mut x, &lens, buf, parallel);
            }
        };
        // A rayon worker blocked inside a parallel layer may run another group (work
        // stealing) and find the buffers borrowed: it then uses fresh ones.
        BUFFERS.with(|cell| match cell.try_borrow_mut() {
            Ok(mut buf) => run(&mut buf),
            Err(_) => run(&mut Buffers::default()),
        });
        self.pool(&x, &lens)
    }

    fn embeddings(&self, batch: &[&[u32]], parallel: bool) -> Vec<f32> {
        let h = self.hidden;
        let mut x: Vec<f32> = Vec::with_capacity(batch.iter().map(|s| s.len()).sum::<usize>() * h);
        for seq in batch {
            for (p, &id) in seq.iter().enumerate() {
                let (w, pe) = (&self.word[id as usize * h..][..h], &self.pos[p * h..][..h]);
                x.extend(w.iter().zip(pe).zip(&self.type0).map(|((a, b), c)| a + b + c));
            }
        }
        let (g, b) = &self.emb_ln;
        for_rows(
            &mut x,
            h,
            parallel,
            #[inline(always)]
            |row| kernels::layer_norm_row(row, g, b, self.eps),
        );
        x
    }

    fn layer(&self, w: &Layer, x: &mut [f32], lens: &[usize], b: &mut Buffers, parallel: bool) {
        let (h, t) = (self.hidden, x.len() / self.hidden);
        let packed = |i: usize| w.packed.as_ref().map(|p| &p[i]);
        let qkv = if let Some(p) = packed(0) {
            // bf16: one fused [T, 3H] projection (the larger GEMM runs faster on AMX tiles).
            bf16::gemm(&mut b.qkv, x, t, p, parallel);
            for_rows(
                &mut b.qkv,
                3 * h,
                parallel,
                #[inline(always)]
                |row| add_bias(row, &w.qkv_b),
            );
            Qkv { data: &b.qkv, offsets: [0, h, 2 * h], stride: 3 * h }
        } else {
            // f32: three [T, H] blocks, each a product with a view of the mapped weight.
            for ((out, wp), bias) in b.qkv.chunks_exact_mut(t * h).zip(&w.qkv_w).zip(w.qkv_b.chunks_exact(h)) {
                project(out, x, wp, None, t, h, h, parallel);
                for_rows(
                    out,
                    h,
                    parallel,
                    #[inline(always)]
                    |row| add_bias(row, bias),
                );
            }
            Qkv { data: &b.qkv, offsets: [0, t * h, 2 * t * h], stride: h }
        };
        self.attention(qkv, &mut b.ctx, lens, parallel);
        project(&mut b.tmp, &b.ctx, &w.out_w, packed(1), t, h, h, parallel);
        residual_norm(x, &b.tmp, &w.out_b, &w.ln1, self.eps, parallel);
        project(&mut b.up, x, &w.up_w, packed(2), t, h, self.inter, parallel);
        for_rows(
            &mut b.up,
            self.inter,
            parallel,
            #[inline(always)]
            |row| kernels::bias_gelu(row, &w.up_b),
        );
        project(&mut b.tmp, &b.up, &w.down_w, packed(3), t, self.inter, h, parallel);
        residual_norm(x, &b.tmp, &w.down_b, &w.ln2, self.eps, parallel);
    }

    /// Scaled dot-product attention per sequence (in parallel), per head (in sequence).
    fn attention(&self, qkv: Qkv<'_>, ctx: &mut [f32], lens: &[usize], parallel: bool) {
        let h = self.hidden;
        let (mut starts, mut c_parts) = (Vec::new(), Vec::new());
        let (mut start, mut crest) = (0, ctx);
        for &l in lens {
            let (c, d) = std::mem::take(&mut crest).split_at_mut(l * h);
            starts.push(start);
            c_parts.push(c);
            (start, crest) = (start + l, d);
        }
        if parallel {
            starts.into_par_iter().zip(c_parts).zip(lens.par_iter()).for_each(|((s, c), &l)| {
                attend(qkv, s, c, l, h, self.heads);
            });
        } else {
            starts.into_iter().zip(c_parts).zip(lens).for_each(|((s, c), &l)| attend(qkv, s, c, l, h, self.heads));
        }
    }

    fn pool(&self, x: &[f32], lens: &[usize]) -> Vec<Vec<f32>> {
        let h = self.hidden;
        let mut start = 0;
        lens.iter()
            .map(|&l| {
                let rows = &x[start * h..(start + l) * h];
                start += l;
                let mut v = match self.pooling {
                    Pooling::Cls => rows[..h].to_vec(),
                    Pooling::Mean => mean_rows(rows, h),
                };
                crate::distance::normalize(&mut v);
                v
            })
            .collect()
    }
}

thread_local! {
    /// This thread's activation buffers ([`Buffers`]).
    static BUFFERS: std::cell::RefCell<Buffers> = std::cell::RefCell::new(Buffers::default());
}

/// Tokens per group of sequences that one thread runs through the whole network.
const GROUP_TOKENS: usize = 768;

/// Splits a batch into runs of consecutive sequences for the rayon pool: about `tokens`
/// tokens each, but the number of runs is rounded up to a multiple of `threads` and the
/// tokens are shared evenly between them, so no thread idles at the end of a batch (three
/// runs on two threads left one thread idle for a third of the batch: 1.75 CPU utilisation
/// instead of 2 on short snippets). A run never splits a sequence; one sequence longer than
/// a run's share is a run of its own.
fn group_by_tokens<'a, 'b>(batch: &'a [&'b [u32]], tokens: usize, threads: usize) -> Vec<&'a [&'b [u32]]> {
    let total: usize = batch.iter().map(|s| s.len()).sum();
    let threads = threads.max(1);
    let runs = total.div_ceil(tokens.max(1)).div_ceil(threads) * threads;
    let share = total.div_ceil(runs.max(1)).max(1);
    let mut groups = Vec::with_capacity(runs);
    let (mut start, mut acc) = (0, 0);
    for (i, s) in batch.iter().enumerate() {
        acc += s.len();
        if acc >= share {
            groups.push(&batch[start..=i]);
            (start, acc) = (i + 1, 0);
        }
    }
    if start < batch.len() {
        groups.push(&batch[start..]);
    }
    groups
}

/// Runs `f` on every `width`-float row of `x` under the measured-fastest instruction set
/// ([`kernels::elementwise`]), on the rayon pool when `parallel`. The closures given to
/// `elementwise` here and below are `#[inline(always)]`: one that is not inlined into pulp's
/// `#[target_feature]` function is compiled for the baseline (SSE2) instead, as the softmax
/// was (17 % of the bf16 encoder's time, 4 lanes wide, before it was marked).
fn for_rows(x: &mut [f32], width: usize, parallel: bool, f: impl Fn(&mut [f32]) + Sync) {
    if parallel {
        x.par_chunks_mut(width).for_each(|row| {
            elementwise(
                #[inline(always)]
                || f(row),
            );
        });
    } else {
        elementwise(
            #[inline(always)]
            || {
                for row in x.chunks_mut(width) {
                    f(row);
                }
            },
        );
    }
}

/// `dst[m, n] = a[m, k] · wᵀ` for a weight `w` of `[n, k]` (PyTorch's `[out, in]`): with
/// the bf16-packed copy of `w` when there is one ([`bf16::gemm`]), else in f32 on a
/// transposed view of `w` (faer packs either layout into its own panels).
#[allow(clippy::too_many_arguments)]
fn project(
    dst: &mut [f32],
    a: &[f32],
    w: &[f32],
    packed: Option<&PackedB>,
    m: usize,
    k: usize,
    n: usize,
    parallel: bool,
) {
    match packed {
        Some(p) => bf16::gemm(dst, a, m, p, parallel),
        None => gemm_with(dst, a, MatRef::from_row_major_slice(w, n, k).transpose(), m, parallel),
    }
}

/// `dst[m, n] = a[m, k] · b[k, n]`, all row-major; on all rayon threads when `parallel`.
#[cfg(test)]
fn gemm(dst: &mut [f32], a: &[f32], b: &[f32], m: usize, k: usize, n: usize, parallel: bool) {
    gemm_with(dst, a, MatRef::from_row_major_slice(b, k, n), m, parallel);
}

/// `dst[m, n] = a[m, k] · b` for any layout of `b` (`[k, n]`); on all rayon threads when
/// `parallel` and the product is large enough (> 2^20 multiply-adds).
fn gemm_with(dst: &mut [f32], a: &[f32], b: MatRef<'_, f32>, m: usize, parallel: bool) {
    let (k, n) = (b.nrows(), b.ncols());
    let par = if parallel && m * n * k > 1 << 20 { Par::rayon(0) } else { Par::Seq };
    matmul(
        MatMut::from_row_major_slice_mut(dst, m, n),
        Accum::Replace,
        MatRef::from_row_major_slice(a, m, k),
        b,
        1.0,
        par,
    );
}

/// Where the queries, keys and values of a forward pass are: token `t`'s query starts at
/// `data[offsets[0] + t · stride]`, its key at `offsets[1] + …`, its value at `offsets[2] + …`
/// (`[T, 3H]` fused: offsets `0, H, 2H`, stride `3H`; `[3, T, H]`: `0, TH, 2TH`, stride `H`).
#[derive(Clone, Copy)]
struct Qkv<'a> {
    data: &'a [f32],
    offsets: [usize; 3],
    stride: usize,
}

/// Attention of one sequence, its tokens `start .. start + l` of `qkv`; `ctx` is its
/// `[L, H]` output.
fn attend(qkv: Qkv<'_>, start: usize, ctx: &mut [f32], l: usize, h: usize, heads: usize) {
    let d = h / heads;
    let scale = 1.0 / (d as f32).sqrt();
    let (mut scores, mut out, mut sums) = (vec![0f32; l * l], vec![0f32; l * d], vec![0f32; l]);
    for head in 0..heads {
        let view = |part: usize| {
            let first = qkv.offsets[part] + start * qkv.stride + head * d;
            MatRef::from_row_major_slice_with_stride(&qkv.data[first..], l, d, qkv.stride)
        };
        let (q, k, v) = (view(0), view(1), view(2));
        matmul(MatMut::from_row_major_slice_mut(&mut scores, l, l), Accum::Replace, q, k.transpose(), scale, Par::Seq);
        // exp(s − max) per row; the division by the row's sum is applied to the [L, d]
        // output below instead of the [L, L] probabilities.
        elementwise(
            #[inline(always)]
            || kernels::softmax_rows(&mut scores, l, &mut sums),
        );
        // Into a contiguous buffer, then copied: faer 0.24.4 writes 8 bytes past the end of a
        // row-strided destination view whose last row ends the slice (seen under valgrind).
        let o = MatMut::from_row_major_slice_mut(&mut out, l, d);
        matmul(o, Accum::Replace, MatRef::from_row_major_slice(&scores, l, l), v, 1.0, Par::Seq);
        for ((dst, src), s) in ctx.chunks_exact_mut(h).zip(out.chunks_exact(d)).zip(&sums) {
            let inv = 1.0 / s;
            dst[head * d..(head + 1) * d].iter_mut().zip(src).for_each(|(o, v)| *o = v * inv);
        }
    }
}

#[inline(always)]
fn add_bias(row: &mut [f32], bias: &[f32]) {
    row.iter_mut().zip(bias).for_each(|(v, b)| *v += b);
}

/// `x = LayerNorm(x + y + bias)` row by row.
fn residual_norm(x: &mut [f32], y: &[f32], bias: &[f32], ln: &(Vec<f32>, Vec<f32>), eps: f32, parallel: bool) {
    let h = bias.len();
    let one = |(xr, yr): (&mut [f32], &[f32])| {
        elementwise(
            #[inline(always)]
            || kernels::residual_norm_row(xr, yr, bias, &ln.0, &ln.1, eps),
        );
    };
    if parallel {
        x.par_chunks_mut(h).zip(y.par_chunks(h)).for_each(one);
    } else {
        x.chunks_mut(h).zip(y.chunks(h)).for_each(one);
    }
}

fn mean_rows(rows: &[f32], h: usize) -> Vec<f32> {
    let mut acc = vec![0f32; h];
    let n = (rows.len() / h) as f32;
    rows.chunks_exact(h).for_each(|r| acc.iter_mut().zip(r).for_each(|(a, v)| *a += v));
    acc.iter_mut().for_each(|a| *a /= n);
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_cover_the_batch_in_order_and_balance_threads() {
        let seqs: Vec<Vec<u32>> = (0..64).map(|i| vec![0; 20 + i % 7]).collect();
        let batch: Vec<&[u32]> = seqs.iter().map(Vec::as_slice).collect();
        let total: usize = seqs.iter().map(Vec::len).sum(); // 1,470 tokens: 2 runs of 768 → 2
        for threads in [1, 2, 3, 4] {
            let groups = group_by_tokens(&batch, 768, threads);
            let flat: Vec<&[u32]> = groups.iter().flat_map(|g| g.iter().copied()).collect();
            assert_eq!(flat.len(), batch.len());
            assert!(flat.iter().zip(&batch).all(|(a, b)| std::ptr::eq(*a, *b)), "order kept");
            assert!(groups.len().is_multiple_of(threads) || groups.len() < threads, "{threads}: {}", groups.len());
            let sizes: Vec<usize> = groups.iter().map(|g| g.iter().map(|s| s.len()).sum()).collect();
            let share = total.div_ceil(groups.len());
            assert!(sizes.iter().all(|&t| t <= share + 27), "{threads}: {sizes:?}");
        }
        // One huge sequence is a run of its own.
        let long = vec![0u32; 5000];
        let batch: Vec<&[u32]> = vec![&seqs[0], &long, &seqs[1]];
        assert_eq!(group_by_tokens(&batch, 768, 2).iter().map(|g| g.len()).sum::<usize>(), 3);
    }

    #[test]
    fn gemm_matches_naive() {
        let (m, k, n) = (7, 5, 3);
        let a: Vec<f32> = (0..m * k).map(|i| i as f32 * 0.1).collect();
        let b: Vec<f32> = (0..k * n).map(|i| (i as f32).sin()).collect();
        let mut c = vec![0f32; m * n];
        gemm(&mut c, &a, &b, m, k, n, true);
        for i in 0..m {
            for j in 0..n {
                let want: f32 = (0..k).map(|x| a[i * k + x] * b[x * n + j]).sum();
                assert!((c[i * n + j] - want).abs() < 1e-4);
            }
        }
    }
}
