#!/usr/bin/env python3
"""Seeded synthetic ANN set: N i.i.d. Gaussian vectors normalised to the unit sphere, then 1,000
independent random unit queries (numpy default_rng(SEED), float32, drawn in that order, as
shared/baselines/scripts/bench_ann.py `prepare` does), and the exact top-k ground truth by inner
product (faiss IndexFlatIP). Writes PREFIX_base.fvecs, PREFIX_queries.fvecs, PREFIX_gt_k{K}.ivecs
and PREFIX.json (parameters + timings); does nothing when PREFIX.json already matches.

Random 384-d vectors have almost no neighbourhood structure: use the set for build, open and memory
at scale, not to judge recall.
"""
import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import numpy as np  # noqa: E402

from common import write_fvecs, write_ivecs  # noqa: E402


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--prefix", required=True, help="output path prefix, e.g. scratch/.../synth1m")
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--threads", type=int, default=2)
    return ap.parse_args()


def unit_gaussian(rng, n, dim):
    v = rng.standard_normal((n, dim), dtype=np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return v


def exact_topk(base, queries, k, threads):
    import faiss
    faiss.omp_set_num_threads(threads)
    ix = faiss.IndexFlatIP(base.shape[1])
    ix.add(base)
    return ix.search(queries, k)[1]


def main():
    a = parse_args()
    meta_path = Path(a.prefix + ".json")
    params = {"n": a.n, "queries": a.queries, "dim": a.dim, "k": a.k, "seed": a.seed}
    files = {"base": a.prefix + "_base.fvecs", "queries": a.prefix + "_queries.fvecs",
             "gt": a.prefix + f"_gt_k{a.k}.ivecs"}
    if meta_path.exists():
        meta = json.loads(meta_path.read_text())
        if meta.get("params") == params and all(Path(f).exists() for f in files.values()):
            print(json.dumps({**meta, "reused": True}))
            return
    Path(a.prefix).parent.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    rng = np.random.default_rng(a.seed)
    base = unit_gaussian(rng, a.n, a.dim)
    queries = unit_gaussian(rng, a.queries, a.dim)
    gen_s = time.perf_counter() - t
    t = time.perf_counter()
    gt = exact_topk(base, queries, a.k, a.threads)
    gt_s = time.perf_counter() - t
    write_fvecs(files["base"], base)
    write_fvecs(files["queries"], queries)
    write_ivecs(files["gt"], gt)
    meta = {"params": params, "files": files, "generate_s": round(gen_s, 2), "ground_truth_s": round(gt_s, 2)}
    meta_path.write_text(json.dumps(meta))
    print(json.dumps({**meta, "reused": False}))


if __name__ == "__main__":
    main()
