#!/usr/bin/env python3
"""Embedding peers of fixdex on the same snippets: onnxruntime fp32 and sentence-transformers.

  ort : onnxruntime CPU, the plain fp32 export (export_onnx.py), HF `tokenizers` (truncation at
        --max-seq-len, pad to the longest in the batch), batches of --batch formed after sorting by
        token count (descending): shared/baselines/scripts/bench_embed.py --order sorted (anchor E1).
  st  : sentence-transformers `encode(batch_size=--batch, normalize_embeddings=True)` (its own
        character-length sort).

One warm-up batch after loading, then passes; a pass is wall time from raw strings to L2-normalised
float32 vectors, tokenisation included. Each pass prints one JSON line (kind = embed): seconds,
snippets_per_second, tokens_per_second (real tokens, no padding), cpu_util (process CPU-s / wall),
cos_min / cos_mean against --reference.

--serve: load and warm up once, then run one pass per line read on stdin (any text) until EOF, so
that a caller can interleave passes with other programs (A B A B) without reloading the model.
"""
import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backend", choices=["ort", "st"], required=True)
    ap.add_argument("--model-dir", required=True)
    ap.add_argument("--onnx", help="the fp32 .onnx file (ort)")
    ap.add_argument("--snippets", required=True, help="JSONL with a `text` field per line")
    ap.add_argument("--n", type=int, default=2000, help="embed the first N snippets")
    ap.add_argument("--reference", help=".npy float32 [N, dim] embeddings of the same snippets")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--max-seq-len", type=int, default=256)
    ap.add_argument("--repeats", type=int, default=1, help="passes (ignored with --serve)")
    ap.add_argument("--serve", action="store_true")
    return ap.parse_args()


def set_thread_env(threads):
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = str(threads)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "true")


def load_texts(path, n):
    with open(path) as f:
        return [json.loads(line)["text"] for _, line in zip(range(n), f)]


def token_lengths(model_dir, texts, max_seq_len):
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(str(Path(model_dir) / "tokenizer.json"))
    tok.enable_truncation(max_seq_len)
    tok.no_padding()
    return [len(e.ids) for e in tok.encode_batch(texts)]


class Ort:
    def __init__(self, a, lens):
        import numpy as np
        import onnxruntime as ort
        from tokenizers import Tokenizer
        so = ort.SessionOptions()
        so.intra_op_num_threads = a.threads
        so.inter_op_num_threads = 1
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.sess = ort.InferenceSession(a.onnx, so, providers=["CPUExecutionProvider"])
        self.tok = Tokenizer.from_file(str(Path(a.model_dir) / "tokenizer.json"))
        self.tok.enable_truncation(a.max_seq_len)
        self.tok.enable_padding(pad_id=0, pad_token="[PAD]")
        self.order = np.argsort(-np.asarray(lens), kind="stable")
        self.batch = a.batch
        self.version = {"onnxruntime": ort.__version__}

    def _embed(self, texts):
        import numpy as np
        encs = self.tok.encode_batch(texts)
        ids = np.array([e.ids for e in encs], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encs], dtype=np.int64)
        return self.sess.run(None, {"input_ids": ids, "attention_mask": mask,
                                    "token_type_ids": np.zeros_like(ids)})[0]

    def warm_up(self, texts):
        self._embed(texts[:self.batch])

    def run_pass(self, texts):
        import numpy as np
        out = np.empty((len(texts), 384), dtype=np.float32)
        for b in range(0, len(texts), self.batch):
            idx = self.order[b:b + self.batch]
            out[idx] = self._embed([texts[i] for i in idx])
        return out


class St:
    def __init__(self, a, lens):
        import sentence_transformers
        import torch
        from sentence_transformers import SentenceTransformer
        torch.set_num_threads(a.threads)
        self.model = SentenceTransformer(a.model_dir, device="cpu")
        self.model.max_seq_length = a.max_seq_len
        self.batch = a.batch
        self.version = {"torch": torch.__version__, "sentence_transformers": sentence_transformers.__version__}

    def warm_up(self, texts):
        self.model.encode(texts[:self.batch], batch_size=self.batch)

    def run_pass(self, texts):
        return self.model.encode(texts, batch_size=self.batch, normalize_embeddings=True, convert_to_numpy=True,
                                 show_progress_bar=False)


def cosine(emb, reference):
    import numpy as np
    if reference is None:
        return None, None
    ref = np.load(reference)[:len(emb)]
    cos = (ref * emb).sum(1) / np.linalg.norm(ref, axis=1) / np.linalg.norm(emb, axis=1)
    return float(cos.min()), float(cos.mean())


def one_pass(backend, a, texts, tokens):
    from common import timed
    wall, cpu, emb = timed(lambda: backend.run_pass(texts))
    cmin, cmean = cosine(emb, a.reference)
    return {"kind": "embed", "backend": a.backend, "snippets": len(texts), "tokens": tokens, "seconds": wall,
            "snippets_per_second": len(texts) / wall, "tokens_per_second": tokens / wall, "cpu_util": cpu / wall,
            "threads": a.threads, "batch": a.batch, "cos_min": cmin, "cos_mean": cmean, "versions": backend.version}


def main():
    a = parse_args()
    set_thread_env(a.threads)
    from common import emit
    texts = load_texts(a.snippets, a.n)
    lens = token_lengths(a.model_dir, texts, a.max_seq_len)
    backend = (Ort if a.backend == "ort" else St)(a, lens)
    backend.warm_up(texts)
    if a.serve:
        emit({"kind": "ready", "backend": a.backend})
        for _ in sys.stdin:
            emit(one_pass(backend, a, texts, sum(lens)))
    else:
        for _ in range(max(a.repeats, 1)):
            emit(one_pass(backend, a, texts, sum(lens)))


if __name__ == "__main__":
    main()
