#!/usr/bin/env python3
"""ANN peers of fixdex: hnswlib, FAISS IndexHNSWFlat, usearch -- same parameters as `fixdex bench ann`.

  bench : build (timed, --build-threads) -> save -> load from the file -> sweep ef_search x threads on
          the loaded index: per configuration the best of --search-repeats passes, each pass one
          batched call over all queries (QPS = n_queries / wall), recall@k vs the ground truth.
  load  : in a fresh process, open a saved index --repeats times (best and first ms) and report the
          resident set size right after the last open (compare with `fixdex bench open`).

Prints one JSON object per measurement, in the shape of fixdex's (kind = build | load | search),
plus cpu_util = process CPU-seconds / wall-seconds of that measurement.
"""
import argparse
import gc
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import numpy as np  # noqa: E402

from common import emit, read_fvecs, read_ivecs, recall_at, rss_mb, timed  # noqa: E402

LIBS = ("hnswlib", "faiss", "usearch", "usearch-view")


class Hnswlib:
    """Libraries are imported in __init__, so that load timings exclude the import."""
    name = "hnswlib"

    def __init__(self):
        import hnswlib
        self.mod = hnswlib

    def build(self, base, m, efc, threads):
        self.ix = self.mod.Index(space="ip", dim=base.shape[1])
        self.ix.init_index(max_elements=len(base), ef_construction=efc, M=m, random_seed=100)
        self.ix.add_items(base, np.arange(len(base)), num_threads=threads)

    def save(self, path):
        self.ix.save_index(str(path))

    def load(self, path, dim):
        self.ix = self.mod.Index(space="ip", dim=dim)
        self.ix.load_index(str(path))

    def search(self, q, k, ef, threads):
        self.ix.set_ef(max(ef, k))
        return self.ix.knn_query(q, k=k, num_threads=threads)[0]


class Faiss:
    name = "faiss"

    def __init__(self):
        import faiss
        self.mod = faiss

    def build(self, base, m, efc, threads):
        self.mod.omp_set_num_threads(threads)
        self.ix = self.mod.IndexHNSWFlat(base.shape[1], m, self.mod.METRIC_INNER_PRODUCT)
        self.ix.hnsw.efConstruction = efc
        self.ix.add(base)

    def save(self, path):
        self.mod.write_index(self.ix, str(path))

    def load(self, path, dim):
        self.ix = self.mod.read_index(str(path))

    def search(self, q, k, ef, threads):
        self.mod.omp_set_num_threads(threads)
        self.ix.hnsw.efSearch = max(ef, k)
        return self.ix.search(q, k)[1]


class Usearch:
    name = "usearch"
    view = False

    def __init__(self):
        from usearch.index import Index
        self.mod = Index

    def build(self, base, m, efc, threads):
        self.ix = self.mod(ndim=base.shape[1], metric="ip", dtype="f32", connectivity=m, expansion_add=efc)
        self.ix.add(np.arange(len(base), dtype=np.uint64), base, threads=threads)

    def save(self, path):
        self.ix.save(str(path))

    def load(self, path, dim):
        self.ix = self.mod.restore(str(path), view=self.view)

    def search(self, q, k, ef, threads):
        self.ix.expansion_search = max(ef, k)
        return self.ix.search(q, k, threads=threads).keys.astype(np.int64)


class UsearchView(Usearch):
    """usearch opened with restore(view=True): memory-mapped, like fixdex's open."""
    name = "usearch-view"
    view = True


CLASSES = {c.name: c for c in (Hnswlib, Faiss, Usearch, UsearchView)}


def ints(s):
    return [int(x) for x in s.split(",")]


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("bench", help="build, save, load, sweep")
    b.add_argument("--lib", required=True, choices=LIBS[:3])
    b.add_argument("--base", required=True)
    b.add_argument("--queries", required=True)
    b.add_argument("--gt", required=True)
    b.add_argument("--index", required=True, help="file to save the built index to")
    b.add_argument("--m", type=int, default=16)
    b.add_argument("--ef-construction", type=int, default=200)
    b.add_argument("--build-threads", type=int, default=2)
    b.add_argument("--ef", type=ints, default=[16, 32, 64, 128, 256])
    b.add_argument("--threads", type=ints, default=[1, 2])
    b.add_argument("--search-repeats", type=int, default=3)
    b.add_argument("-k", type=int, default=10)
    sw = sub.add_parser("sweep", help="load a saved index once, then one batched search per ef (cold/warm starts)")
    sw.add_argument("--lib", required=True, choices=LIBS)
    sw.add_argument("--index", required=True)
    sw.add_argument("--queries", required=True)
    sw.add_argument("--gt", required=True)
    sw.add_argument("--dim", type=int, default=384)
    sw.add_argument("--ef", type=ints, default=[16, 64])
    sw.add_argument("--threads", type=int, default=2)
    sw.add_argument("-k", type=int, default=10)
    lo = sub.add_parser("load", help="open a saved index repeatedly; RSS after the last open")
    lo.add_argument("--lib", required=True, choices=LIBS)
    lo.add_argument("--index", required=True)
    lo.add_argument("--dim", type=int, default=384)
    lo.add_argument("--repeats", type=int, default=10)
    return ap.parse_args()


def bench(a):
    base, queries = read_fvecs(a.base), read_fvecs(a.queries)
    gt = read_ivecs(a.gt)
    lib = CLASSES[a.lib]()
    wall, cpu, _ = timed(lambda: lib.build(base, a.m, a.ef_construction, a.build_threads))
    emit({"kind": "build", "lib": a.lib, "seconds": wall, "vectors_per_second": len(base) / wall,
          "cpu_util": cpu / wall, "vectors": len(base), "m": a.m, "ef_construction": a.ef_construction,
          "threads": a.build_threads})
    lib.save(a.index)
    del lib
    gc.collect()
    lib = CLASSES[a.lib]()
    wall, _, _ = timed(lambda: lib.load(a.index, base.shape[1]))
    emit({"kind": "load", "lib": a.lib, "ms": wall * 1e3, "file_bytes": os.path.getsize(a.index)})
    for threads in a.threads:
        for ef in a.ef:
            best = None
            for _ in range(max(a.search_repeats, 1)):
                wall, cpu, found = timed(lambda: lib.search(queries, a.k, ef, threads))
                if best is None or wall < best[0]:
                    best = (wall, cpu, found)
            wall, cpu, found = best
            emit({"kind": "search", "lib": a.lib, "ef": ef, "threads": threads, "k": a.k,
                  "qps": len(queries) / wall, "recall": recall_at(found, gt, a.k), "cpu_util": cpu / wall,
                  "queries": len(queries)})


def load(a):
    CLASSES[a.lib]()  # import the library before measuring
    rss_before = rss_mb()
    times, lib = [], None
    for _ in range(max(a.repeats, 1)):
        lib = None
        gc.collect()
        lib = CLASSES[a.lib]()
        wall, _, _ = timed(lambda: lib.load(a.index, a.dim))
        times.append(wall * 1e3)
    emit({"kind": "open", "lib": a.lib, "index": a.index, "file_bytes": os.path.getsize(a.index),
          "open_ms_best": min(times), "open_ms_first": times[0], "rss_mb_before": rss_before,
          "rss_mb_after_open": rss_mb()})


def sweep(a):
    """Load once (timed), then one batched search per ef in the order given: after a page-cache drop
    the first search pays for the pages the load did not read."""
    queries, gt = read_fvecs(a.queries), read_ivecs(a.gt)
    lib = CLASSES[a.lib]()
    wall, _, _ = timed(lambda: lib.load(a.index, a.dim))
    emit({"kind": "load", "lib": a.lib, "ms": wall * 1e3, "file_bytes": os.path.getsize(a.index), "rss_mb": rss_mb()})
    for ef in a.ef:
        wall, cpu, found = timed(lambda: lib.search(queries, a.k, ef, a.threads))
        emit({"kind": "search", "lib": a.lib, "ef": ef, "threads": a.threads, "k": a.k, "seconds": wall,
              "qps": len(queries) / wall, "recall": recall_at(found, gt, a.k), "cpu_util": cpu / wall,
              "queries": len(queries), "rss_mb": rss_mb()})


def main():
    a = parse_args()
    {"bench": bench, "load": load, "sweep": sweep}[a.cmd](a)


if __name__ == "__main__":
    main()
