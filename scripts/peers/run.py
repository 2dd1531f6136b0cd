#!/usr/bin/env python3
"""Orchestrates scripts/bench-vs-peers.sh: fixdex and its peers on identical inputs, interleaved.

Rounds: every round runs each program once, in a rotating order (fixdex, hnswlib, faiss, usearch,
then hnswlib, faiss, usearch, fixdex, ...), so a burst of load from other processes hits all of them
alike (A B A B); report.py takes the best over rounds. Every raw JSON line (from `fixdex bench` and
from the peer scripts) is tagged (lib, set, round, call, process CPU utilisation, `host`, `load1_start`
and `load1` at the call's start and end, `others_cpu` = CPUs' worth of work other processes did during
the call) and written to WORK/results.jsonl; the table and the last-line JSON are printed by report.py.

fixdex ANN calls per round: build (`bench ann` with a minimal sweep), then `--reuse` sweeps at 1 and
at 2 threads, each a separate process so its CPU utilisation is that figure's.
"""
import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import report  # noqa: E402
from common import run_json  # noqa: E402
from hostinfo import host_info, loadavg, machine_busy_s, others_cpu, proc_cpu_s  # noqa: E402

PEERS = ("hnswlib", "faiss", "usearch")


def csv(s, conv=str):
    return [conv(x) for x in s.split(",") if x]


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="real set only, 200 snippets, 2 rounds, no 1M set")
    ap.add_argument("--fixdex", required=True, help="the fixdex binary")
    ap.add_argument("--shared", required=True, help="the shared/ folder (holds baselines/)")
    ap.add_argument("--model-dir", required=True)
    ap.add_argument("--onnx", required=True, help="fp32 ONNX export (export_onnx.py)")
    ap.add_argument("--work", required=True, help="output folder (results.jsonl, indexes, synthetic set)")
    ap.add_argument("--rounds", type=int, help="ANN rounds, best reported (default 3, quick 2)")
    ap.add_argument("--embed-rounds", type=int, default=2, help="embedding passes per program")
    ap.add_argument("--embed-n", type=int, help="snippets to embed (default 2000, quick 200)")
    ap.add_argument("--m", type=int, default=16)
    ap.add_argument("--ef-construction", type=int, default=200)
    ap.add_argument("--ef", type=lambda s: csv(s, int), default=[16, 32, 64, 128, 256])
    ap.add_argument("--threads", type=lambda s: csv(s, int), default=[1, 2])
    ap.add_argument("--build-threads", type=int, default=2)
    ap.add_argument("--fixdex-quantize", default="int8", choices=["none", "int8"],
                    help="fixdex traversal vectors: int8 codes reranked by exact f32 (default) or f32 only")
    ap.add_argument("--open-repeats", type=int, default=10)
    ap.add_argument("--append-base", type=int, help="records in the index appended to (default 20000, quick 2000)")
    ap.add_argument("--append-new", type=int, help="records appended (default 1000, quick 100)")
    ap.add_argument("--append-rounds", type=int, default=2, help="append and rebuild timings, best reported")
    ap.add_argument("--synth-n", type=int, default=1_000_000)
    ap.add_argument("--synth-ef-construction", type=int, default=16,
                    help="ef_construction of the 1M builds: the three builds take ~11 min at 16 on 2 busy cores, "
                         "~30 min at 40 (extrapolated from 50k); open time and RSS hardly depend on it")
    ap.add_argument("--synth-ef", type=lambda s: csv(s, int), default=[16, 64, 256])
    ap.add_argument("--cold-ef", type=lambda s: csv(s, int), default=[16, 64],
                    help="ef_search values of the cold/warm start runs on the 1M set, in order")
    ap.add_argument("--synth-libs", type=csv, default=["fixdex", "hnswlib", "usearch"],
                    help="programs that build the 1M index (faiss is left out: its build is the slowest)")
    a = ap.parse_args()
    a.rounds = a.rounds or (2 if a.quick else 3)
    a.embed_n = a.embed_n or (200 if a.quick else 2000)
    a.append_base = a.append_base or (2000 if a.quick else 20000)
    a.append_new = a.append_new or (100 if a.quick else 1000)
    return a


class Recorder:
    """Appends tagged records to results.jsonl and keeps them for the report."""

    def __init__(self, path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.file = open(self.path, "w")
        self.records = []
        self.host = host_info()

    def add(self, rec, **tags):
        """`host` is fixdex's own where its line has one, else this process's view of the machine."""
        load = loadavg()
        rec = {**rec, **tags, "load1": load and load[0]}
        rec.setdefault("host", self.host)
        self.records.append(rec)
        self.file.write(json.dumps(rec) + "\n")
        self.file.flush()
        return rec


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def rotate(items, r):
    return items[r % len(items):] + items[:r % len(items)]


def python():
    return sys.executable


def record_call(rec, cmd, env=None, **tags):
    """Run one command, tag each JSON line it prints with the call's process CPU utilisation, the
    1-minute load average at its start and the CPU other processes used meanwhile."""
    load, busy0 = loadavg(), machine_busy_s()
    lines, wall, cpu = run_json(cmd, env=env)
    others = others_cpu(busy0, machine_busy_s(), cpu, wall)
    for line in lines:
        rec.add(line, process_wall_s=round(wall, 3), process_cpu_util=round(cpu / wall, 3),
                load1_start=load and load[0], others_cpu=others, **tags)
    return lines


# ---------------------------------------------------------------- ANN


class AnnSet:
    def __init__(self, name, base, queries, gt, work):
        self.name, self.base, self.queries, self.gt = name, str(base), str(queries), str(gt)
        self.dir = Path(work) / "indexes"
        self.dir.mkdir(parents=True, exist_ok=True)

    def index(self, lib, efc):
        ext = "fdx" if lib == "fixdex" else "index"
        return str(self.dir / f"{self.name}_{lib}_M16_efc{efc}.{ext}")


def fixdex_ann(rec, a, ds, efc, rnd, efs, threads, build):
    """Build (optional) then one process per thread count for the sweep."""
    common = [a.fixdex, "bench", "ann", "--base", ds.base, "--queries", ds.queries, "--gt", ds.gt,
              "--index", ds.index("fixdex", efc), "--m", str(a.m), "--ef-construction", str(efc), "--repeats", "1",
              "--quantize", a.fixdex_quantize]
    env = {"RAYON_NUM_THREADS": str(a.build_threads)}
    tags = {"lib": "fixdex", "set": ds.name, "round": rnd}
    if build:
        record_call(rec, common + ["--ef", str(efs[0]), "--threads", "1"], env=env, call="build", **tags)
    for t in threads:
        record_call(rec, common + ["--reuse", "--ef", ",".join(map(str, efs)), "--threads", str(t)], env=env,
                    call=f"search-{t}t", **tags)


def peer_ann(rec, a, ds, lib, efc, rnd, efs, threads):
    cmd = [python(), str(HERE / "ann_peers.py"), "bench", "--lib", lib, "--base", ds.base, "--queries", ds.queries,
           "--gt", ds.gt, "--index", ds.index(lib, efc), "--m", str(a.m), "--ef-construction", str(efc),
           "--build-threads", str(a.build_threads), "--ef", ",".join(map(str, efs)),
           "--threads", ",".join(map(str, threads)), "--search-repeats", "1"]
    record_call(rec, cmd, call="bench", lib=lib, set=ds.name, round=rnd)


def open_round(rec, a, ds, libs, efc, rnd):
    """Open/load each saved index in a fresh process (best of --open-repeats, RSS after)."""
    for lib in rotate(list(libs), rnd):
        if lib == "fixdex":
            cmd = [a.fixdex, "bench", "open", ds.index("fixdex", efc), "--repeats", str(a.open_repeats)]
        else:
            path = ds.index("usearch" if lib == "usearch-view" else lib, efc)
            cmd = [python(), str(HERE / "ann_peers.py"), "load", "--lib", lib, "--index", path,
                   "--repeats", str(a.open_repeats)]
        record_call(rec, cmd, call="open", lib=lib, set=ds.name, round=rnd)


def ann_real(rec, a):
    d = Path(a.shared) / "baselines" / "ann"
    ds = AnnSet("real", d / "real_base.fvecs", d / "real_queries.fvecs", d / "real_gt_k100.ivecs", a.work)
    libs = ["fixdex", *PEERS]
    for rnd in range(a.rounds):
        for lib in rotate(libs, rnd):
            log(f"ANN real round {rnd + 1}/{a.rounds}: {lib}")
            if lib == "fixdex":
                fixdex_ann(rec, a, ds, a.ef_construction, rnd, a.ef, a.threads, build=True)
            else:
                peer_ann(rec, a, ds, lib, a.ef_construction, rnd, a.ef, a.threads)
    for rnd in range(a.rounds):
        log(f"open/load, real set, round {rnd + 1}/{a.rounds}")
        open_round(rec, a, ds, ["fixdex", "hnswlib", "faiss", "usearch", "usearch-view"], a.ef_construction, rnd)


def ann_synth(rec, a):
    prefix = str(Path(a.work) / "synth" / f"synth{a.synth_n // 1000}k")
    log(f"synthetic set {a.synth_n} x 384 (default_rng(1234)) + exact top-10 (faiss IndexFlatIP)")
    record_call(rec, [python(), str(HERE / "synth.py"), "--prefix", prefix, "--n", str(a.synth_n)],
                call="generate", lib="synth", set="synth1m", round=0)
    ds = AnnSet("synth1m", prefix + "_base.fvecs", prefix + "_queries.fvecs", prefix + "_gt_k10.ivecs", a.work)
    efc = a.synth_ef_construction
    for lib in a.synth_libs:
        log(f"1M build + sweep (M={a.m}, ef_construction={efc}, 2 threads): {lib}")
        if lib == "fixdex":
            fixdex_ann(rec, a, ds, efc, 0, a.synth_ef, [2], build=True)
        else:
            peer_ann(rec, a, ds, lib, efc, 0, a.synth_ef, [2])
    opens = list(a.synth_libs) + (["usearch-view"] if "usearch" in a.synth_libs else [])
    for rnd in range(2):
        log(f"open/load, 1M set, round {rnd + 1}/2")
        open_round(rec, a, ds, opens, efc, rnd)
    cold_warm(rec, a, ds, efc, [lib for lib in ("fixdex", "hnswlib") if lib in a.synth_libs])


def drop_page_cache():
    """Empties the page cache (root only: `sync; echo 1 > /proc/sys/vm/drop_caches`); False when not allowed."""
    try:
        os.sync()
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("1\n")
        return True
    except OSError:
        return False


def cold_warm(rec, a, ds, efc, libs):
    """Cold and warm starts: per program, a fresh process that opens/loads the saved index and runs one
    batched search per ef (a.cold_ef, in order, 2 threads), first right after emptying the page cache
    (cold), then again at once (warm). The process wall time is the cold-start cost a CLI user pays."""
    for lib in libs:
        for state in ("cold", "warm"):
            if state == "cold" and not drop_page_cache():
                log("cold start: cannot empty the page cache (needs root); measuring warm only")
                continue
            log(f"{state} start, {ds.name}: {lib}")
            if lib == "fixdex":
                # --base is read before the open and unused with --reuse: the queries file stands in,
                # so 1.5 GB of base vectors are not read (nor cached) before the cold open.
                cmd = [a.fixdex, "bench", "ann", "--base", ds.queries, "--queries", ds.queries, "--gt", ds.gt,
                       "--index", ds.index("fixdex", efc), "--reuse", "--repeats", "1",
                       "--ef", ",".join(map(str, a.cold_ef)), "--threads", "2"]
            else:
                cmd = [python(), str(HERE / "ann_peers.py"), "sweep", "--lib", lib, "--index", ds.index(lib, efc),
                       "--queries", ds.queries, "--gt", ds.gt, "--ef", ",".join(map(str, a.cold_ef)), "--threads", "2"]
            record_call(rec, cmd, env={"RAYON_NUM_THREADS": "2"}, call="coldwarm", state=state, lib=lib,
                        set=ds.name, round=0)


# ---------------------------------------------------------------- appends


APPEND_SOURCES = ("manysstubs4j.jsonl", "codexglue_refinement.jsonl", "condefects.jsonl")


def append_corpus(a):
    """Writes base.jsonl (the first --append-base rows of the shared corpora APPEND_SOURCES, read in
    that order), new.jsonl (the next --append-new rows) and all.jsonl (both) under WORK/append;
    returns their paths."""
    d = Path(a.work) / "append"
    d.mkdir(parents=True, exist_ok=True)
    want, rows = a.append_base + a.append_new, []
    for name in APPEND_SOURCES:
        with open(Path(a.shared) / "data" / name) as f:
            rows.extend(line for _, line in zip(range(want - len(rows)), f))
        if len(rows) == want:
            break
    if len(rows) < want:
        raise SystemExit(f"appends: the shared corpora {APPEND_SOURCES} hold {len(rows)} rows, fewer than {want}")
    paths = {name: d / f"{name}.jsonl" for name in ("base", "new", "all")}
    paths["base"].write_text("".join(rows[:a.append_base]))
    paths["new"].write_text("".join(rows[a.append_base:]))
    paths["all"].write_text("".join(rows))
    return d, paths


def appends(rec, a):
    """`fixdex index --append` of N new records to a B-record index vs a rebuild of all B + N (same
    model, settings and threads; each a fresh process, so both include model load). The base is
    built once; each round appends to a fresh copy of it. Figures: process wall seconds."""
    d, paths = append_corpus(a)
    base = d / "base.fdx"
    env = {"RAYON_NUM_THREADS": "2"}
    log(f"appends: building the {a.append_base}-record base index from {', '.join(APPEND_SOURCES)}")
    record_call(rec, [a.fixdex, "index", str(paths["base"]), "-o", str(base), "--json", "-q"], env=env,
                call="append-base", lib="fixdex", set="append", round=0, records=a.append_base)
    for rnd in range(a.append_rounds):
        grown = d / f"grown-{rnd}.fdx"
        for p in [grown, Path(str(grown) + ".segments")]:
            shutil.rmtree(p, ignore_errors=True) if p.is_dir() else p.unlink(missing_ok=True)
        shutil.copyfile(base, grown)
        for step in ("append", "rebuild") if rnd % 2 == 0 else ("rebuild", "append"):
            log(f"appends round {rnd + 1}/{a.append_rounds}: {step}")
            if step == "append":
                cmd = [a.fixdex, "index", "--append", str(grown), str(paths["new"]), "--json", "-q"]
                n = a.append_new
            else:
                cmd = [a.fixdex, "index", str(paths["all"]), "-o", str(d / "rebuilt.fdx"), "--json", "-q"]
                n = a.append_base + a.append_new
            record_call(rec, cmd, env=env, call=step, lib="fixdex", set="append", round=rnd, records=n,
                        base_records=a.append_base)


# ---------------------------------------------------------------- embedding


def start_worker(a, backend, snippets, reference):
    cmd = [python(), str(HERE / "embed_peers.py"), "--backend", backend, "--model-dir", a.model_dir,
           "--onnx", a.onnx, "--snippets", snippets, "--n", str(a.embed_n), "--reference", reference,
           "--threads", "2", "--batch", "32", "--serve"]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    ready = json.loads(proc.stdout.readline())
    assert ready.get("kind") == "ready", ready
    return proc


def worker_pass(proc):
    """One pass of a --serve worker, tagged like record_call's lines (own CPU = the worker's)."""
    load, busy0, own0, t = loadavg(), machine_busy_s(), proc_cpu_s(proc.pid), time.perf_counter()
    proc.stdin.write("pass\n")
    proc.stdin.flush()
    out = json.loads(proc.stdout.readline())
    wall, own1 = time.perf_counter() - t, proc_cpu_s(proc.pid)
    own = None if None in (own0, own1) else own1 - own0
    return {**out, "load1_start": load and load[0], "others_cpu": others_cpu(busy0, machine_busy_s(), own, wall)}


def cpu_has_bf16():
    """Whether /proc/cpuinfo lists avx512_bf16 (fixdex's `--backend bf16` needs it)."""
    try:
        return any("avx512_bf16" in line.split() for line in open("/proc/cpuinfo") if line.startswith("flags"))
    except OSError:
        return False


def embed(rec, a):
    ref_dir = Path(a.shared) / "baselines" / "reference"
    snippets, reference = str(ref_dir / "snippets-2000.jsonl"), str(ref_dir / "emb-st-2000.npy")
    log(f"embedding: loading the onnxruntime and sentence-transformers workers ({a.embed_n} snippets)")
    workers = {b: start_worker(a, b, snippets, reference) for b in ("ort", "st")}
    fixdex_cmd = [a.fixdex, "bench", "embed", "--snippets", snippets, "--n", str(a.embed_n), "--reference", reference,
                  "--repeats", "1", "--model", a.model_dir]
    progs = ["fixdex", "ort", "st"]
    if cpu_has_bf16():
        progs.insert(1, "fixdex-bf16")
    else:
        log("embedding: this CPU has no avx512_bf16, fixdex runs in f32 only")
    try:
        for rnd in range(a.embed_rounds):
            for prog in rotate(progs, rnd):
                log(f"embedding round {rnd + 1}/{a.embed_rounds}: {prog}")
                if prog.startswith("fixdex"):
                    cmd = fixdex_cmd + (["--backend", "bf16"] if prog == "fixdex-bf16" else [])
                    record_call(rec, cmd, env={"RAYON_NUM_THREADS": "2"}, call="embed", lib=prog,
                                set="embed", round=rnd)
                else:
                    rec.add(worker_pass(workers[prog]), call="embed", lib=prog, set="embed", round=rnd)
    finally:
        for p in workers.values():
            p.stdin.close()
            p.wait()


# ---------------------------------------------------------------- main


def versions():
    import importlib.metadata as md
    out = {}
    for pkg in ("numpy", "hnswlib", "faiss-cpu", "usearch", "onnxruntime", "torch", "sentence-transformers",
                "transformers", "tokenizers"):
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            out[pkg] = None
    return out


def main():
    a = parse_args()
    rec = Recorder(Path(a.work) / "results.jsonl")
    fixdex_version = subprocess.run([a.fixdex, "--version"], capture_output=True, text=True).stdout.strip()
    params = {k: v for k, v in vars(a).items() if k not in ("fixdex",)}
    rec.add({"kind": "meta", "mode": "quick" if a.quick else "full", "params": params, "fixdex": fixdex_version,
             "versions": versions(), "hostname": platform.node(), "cpus": os.cpu_count(), "host": rec.host,
             "loadavg_start": loadavg(), "time": time.strftime("%Y-%m-%dT%H:%M:%S")})
    t0 = time.perf_counter()
    if not a.quick:
        log(f"1M set: M={a.m}, ef_construction={a.synth_ef_construction} (not {a.ef_construction}), "
            f"builders {','.join(a.synth_libs)}, ef {a.synth_ef}, 2 threads, 1 build each")
    ann_real(rec, a)
    embed(rec, a)
    appends(rec, a)
    if not a.quick:
        ann_synth(rec, a)
    rec.add({"kind": "meta-end", "total_s": round(time.perf_counter() - t0, 1), "loadavg_end": loadavg()})
    rec.file.close()
    report.main([str(rec.path)])


if __name__ == "__main__":
    main()
