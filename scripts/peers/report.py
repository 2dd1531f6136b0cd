#!/usr/bin/env python3
"""Table + last-line JSON from scratch/bench-vs-peers/results.jsonl (written by run.py).

Aggregation: throughputs are the best over rounds (QPS, vectors/s, snippets/s; times the minimum),
recall the mean over rounds; "util" = CPU-seconds / wall-seconds of the run that gave the best figure
(per measurement: `cpu_util` of fixdex's and the peers' lines; the whole process's where a line has none). Ratios are fixdex / peer: for
throughputs > 1 means fixdex is faster, for times (ms, s) < 1 means fixdex is faster.

Headline QPS: per program and thread count, the best QPS among the ef settings whose recall@10 on
the real set is >= 0.95. Headline embedding: the fastest of fixdex's backends (f32, bf16) whose
cos_min against the reference is >= 0.999 in this run. The last line is one JSON object (keys: see
`summary` and the header of scripts/bench-vs-peers.sh).

Contention (issue 12): a measurement counts as measured under contention when its CPU utilisation
is < 0.8 x the threads it asked for (not for opens, which wait on the disk), or when other processes
used more than (usable CPUs - threads + 0.5) CPUs during its call (`others_cpu`, from /proc/stat; the
1-minute load average at the call's start where that is missing -- it is not the first choice because
the benchmark's own previous calls keep it near the thread count). A figure of the last line is
contended when a measurement it is made of is; such figures are named in `contended`, marked `*` in
the tables, and make `results_valid` false, as does any program whose headline QPS at more threads is
below its QPS at fewer (`inconsistent`).

Only the standard library: runs without the venv (tests/integration/scripts.rs runs it on a fixture).

Usage: report.py RESULTS.jsonl
"""
import argparse
import json
import statistics
import sys
from collections import defaultdict

RECALL_BAR = 0.95
COS_BAR = 0.999
UTIL_BAR = 0.8
PEERS = ("hnswlib", "faiss", "usearch")
FOOTNOTE = "* measured under contention: not a result"


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def util(r):
    u = r.get("cpu_util")
    if u is None:
        u = r.get("process_cpu_util")
    return None if u is None else round(u, 2)


def contention(r, cpus):
    """Why measurement r counts as measured under contention ([] when it does not)."""
    why, t = [], r.get("threads") or 1
    u = util(r)
    if r.get("kind") != "open" and u is not None and u < UTIL_BAR * t:
        why.append(f"util {u:.2f} < {UTIL_BAR} x {t} thread{'s' if t > 1 else ''}")
    if cpus:
        room = cpus - t + 0.5
        others, load = r.get("others_cpu"), r.get("load1_start")
        if others is not None:
            if others > room:
                why.append(f"other processes used {others:.2f} CPUs > {cpus} CPUs - {t} + 0.5")
        elif load is not None and load > room:
            why.append(f"load1 {load:.2f} at start > {cpus} CPUs - {t} + 0.5")
    return why


def tags(r, cpus):
    """Contention evidence of the record behind a figure."""
    return {"threads": r.get("threads") or 1, "others_cpu": r.get("others_cpu"), "load1_start": r.get("load1_start"),
            "why": contention(r, cpus)}


def star(agg):
    return "*" if agg and agg.get("why") else ""


def sel(recs, **kv):
    return [r for r in recs if all(r.get(k) == v for k, v in kv.items())]


def ratio(a, b):
    return None if a is None or b in (None, 0) else a / b


# ---------------------------------------------------------------- aggregation


def search_table(recs, set_name, cpus=None):
    """{(lib, threads, ef): {qps, recall, util, rounds, why, ...}} with best QPS and mean recall over rounds."""
    groups = defaultdict(list)
    for r in sel(recs, kind="search", set=set_name):
        groups[(r["lib"], r["threads"], r["ef"])].append(r)
    out = {}
    for key, rs in groups.items():
        best = max(rs, key=lambda r: r["qps"])
        recalls = [r["recall"] for r in rs if r.get("recall") is not None]
        out[key] = {"qps": best["qps"], "util": util(best), "rounds": len(rs),
                    "recall": statistics.mean(recalls) if recalls else None, **tags(best, cpus)}
    return out


def headline(table, lib, threads):
    """The table entry (plus ef) of the best QPS with recall >= RECALL_BAR, or None."""
    ok = [(v["qps"], ef) for (l, t, ef), v in table.items()
          if l == lib and t == threads and v["recall"] is not None and v["recall"] >= RECALL_BAR]
    if not ok:
        return None
    _, ef = max(ok)
    return {**table[(lib, threads, ef)], "ef": ef}


def best_build(recs, set_name, lib, cpus=None):
    rs = sel(recs, kind="build", set=set_name, lib=lib)
    if not rs:
        return None
    b = max(rs, key=lambda r: r["vectors_per_second"])
    return {"seconds": b["seconds"], "vps": b["vectors_per_second"], "util": util(b), "rounds": len(rs),
            "ef_construction": b.get("ef_construction"), "vectors": b.get("vectors"), **tags(b, cpus)}


def best_append(recs, call):
    """Fastest `call` (append | rebuild) of the append set: process wall seconds, records, util."""
    rs = [r for r in sel(recs, set="append", call=call) if r.get("process_wall_s") is not None]
    if not rs:
        return None
    b = min(rs, key=lambda r: r["process_wall_s"])
    b = {**b, "threads": 2}
    return {"seconds": b["process_wall_s"], "records": b.get("records"), "base_records": b.get("base_records"),
            "indexed": b.get("indexed"), "util": util(b), "rounds": len(rs), **tags(b, None)}


def print_appends(recs, cpus=None):
    """The append-vs-rebuild table; returns {call: aggregate}."""
    out = {c: best_append(recs, c) for c in ("append", "rebuild")}
    if not all(out.values()):
        return {}
    for c in out:
        rs = [r for r in sel(recs, set="append", call=c) if r.get("process_wall_s") is not None]
        b = min(rs, key=lambda r: r["process_wall_s"])
        out[c].update(tags({**b, "threads": 2}, cpus))
    ap, rb = out["append"], out["rebuild"]
    rows = [[c, fmt(x["records"]), fmt(x["seconds"], 2), fmt(1000 * x["seconds"] / max(x["records"] or 1, 1), 2),
             fmt(x["util"], 2) + star(x)] for c, x in out.items()]
    print_table(f"Appends ({fmt(ap['records'])} records to a {fmt(ap['base_records'])}-record index vs a rebuild of "
                f"all; fixdex index, process wall incl. model load; best of {ap['rounds']})",
                ["step", "records embedded", "seconds", "ms per record", "util"], rows)
    print(f"append / rebuild: {ratio(ap['seconds'], rb['seconds']):.3f} of the time "
          f"for {ap['records'] / max(rb['records'], 1):.3f} of the records")
    return out


def cold_warm(recs, set_name="synth1m"):
    """{lib: {state: {"open_ms", "qps": {ef: qps}, "recall": {ef: r}, "start_s"}}} from the coldwarm calls:
    start_s = open/load + the first batched search (what a fresh process pays before its first answers)."""
    out = {}
    for r in sel(recs, set=set_name, call="coldwarm"):
        slot = out.setdefault(r["lib"], {}).setdefault(r["state"], {"qps": {}, "recall": {}, "searches": []})
        if r.get("kind") in ("open", "load"):
            slot["open_ms"] = r.get("ms", r.get("open_ms_best"))
        elif r.get("kind") == "search":
            slot["qps"][r["ef"]] = r["qps"]
            slot["recall"][r["ef"]] = r.get("recall")
            slot["searches"].append(r.get("queries", 0) / r["qps"] if r.get("qps") else None)
            # A cold start waits on page faults, so its low utilisation is I/O, not contention:
            # judge it by the other processes' CPU only (as opens are).
            kind = "open" if r.get("state") == "cold" else r.get("kind")
            slot.setdefault("why", []).extend(contention({**r, "threads": 2, "kind": kind}, None))
    for states in out.values():
        for slot in states.values():
            first = next((x for x in slot.pop("searches") if x is not None), None)
            slot["start_s"] = None if first is None or slot.get("open_ms") is None else slot["open_ms"] / 1e3 + first
    return out


def print_cold_warm(cw, set_title):
    if not cw:
        return
    efs = sorted({ef for states in cw.values() for slot in states.values() for ef in slot["qps"]})
    rows = []
    for lib, states in cw.items():
        for state, slot in states.items():
            rows.append([lib, state, fmt(slot.get("open_ms"), 1), *[fmt(slot["qps"].get(ef)) for ef in efs],
                         fmt(slot.get("start_s"), 2)])
    print_table(f"{set_title}: cold (page cache emptied) and warm starts, one process each, 2 threads, "
                "one batched search per ef in order",
                ["program", "start", "open/load ms", *[f"QPS ef {ef}" for ef in efs], "open + first search s"], rows)


def cold_warm_keys(cw):
    keys = {}
    for lib, states in cw.items():
        suffix = "" if lib == "fixdex" else f"_{lib}"
        for state, slot in states.items():
            for ef, q in slot["qps"].items():
                keys[f"qps_1m_ef{ef}_{state}{suffix}"] = q
            keys[f"start_s_1m_{state}{suffix}"] = slot.get("start_s")
    return keys


def set_size(recs, set_name):
    """(base vectors, queries) of a set, from the build and search records."""
    n = next((r.get("vectors") for r in sel(recs, kind="build", set=set_name) if r.get("vectors")), None)
    nq = next((r.get("queries") for r in sel(recs, kind="search", set=set_name) if r.get("queries")), None)
    return n, nq


def file_mib(recs, set_name, lib):
    rs = [r for r in sel(recs, set=set_name, lib=lib) if r.get("file_bytes")]
    return rs[-1]["file_bytes"] / 2**20 if rs else None


def best_open(recs, set_name, lib, cpus=None):
    rs = sel(recs, kind="open", set=set_name, lib=lib, call="open")
    if not rs:
        return None
    b = min(rs, key=lambda r: r["open_ms_best"])
    return {"ms": b["open_ms_best"], "first_ms": min(r["open_ms_first"] for r in rs),
            "rss_after": b.get("rss_mb_after_open"), "rss_before": b.get("rss_mb_before"),
            "file_mib": b["file_bytes"] / 2**20 if b.get("file_bytes") else None, "rounds": len(rs),
            "util": None, **tags({**b, "threads": 1}, cpus)}


def best_embed(recs, lib, cpus=None):
    rs = sel(recs, kind="embed", set="embed", lib=lib)
    if not rs:
        return None
    b = max(rs, key=lambda r: r["snippets_per_second"])
    return {"sps": b["snippets_per_second"], "tps": b.get("tokens_per_second"), "util": util(b),
            "cos_min": min((r["cos_min"] for r in rs if r.get("cos_min") is not None), default=None),
            "cos_mean": b.get("cos_mean"), "n": b.get("snippets"), "rounds": len(rs), **tags(b, cpus)}


# ---------------------------------------------------------------- printing


def fmt(v, nd=0):
    if v is None:
        return "-"
    if isinstance(v, str):
        return v
    return f"{v:,.{nd}f}"


def print_table(title, headers, rows):
    print(f"\n## {title}\n")
    cells = [headers] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    for i, row in enumerate(cells):
        print("  ".join(c.rjust(w) if j else c.ljust(w) for j, (c, w) in enumerate(zip(row, widths))).rstrip())
        if i == 0:
            print("  ".join("-" * w for w in widths))


def ann_tables(recs, set_name, title, libs, threads, cpus=None):
    table = search_table(recs, set_name, cpus)
    efs = sorted({ef for (_, _, ef) in table})
    rows = []
    for ef in efs:
        for lib in libs:
            cells = [str(ef), lib]
            got = [table.get((lib, t, ef)) for t in threads]
            if not any(got):
                continue
            cells.append(fmt(next((g["recall"] for g in got if g), None), 4))
            for t, g in zip(threads, got):
                cells.append(f"{fmt(g['qps'])} ({g['util']}){star(g)}" if g else "-")
            for t in threads:
                fx, peer = table.get(("fixdex", t, ef)), table.get((lib, t, ef))
                cells.append("" if lib == "fixdex" else fmt(ratio(fx and fx["qps"], peer and peer["qps"]), 2))
            rows.append(cells)
    headers = ["ef", "program", "recall@10"] + [f"QPS {t}t (util)" for t in threads] + \
              [f"fixdex/peer {t}t" for t in threads]
    print_table(f"{title}: recall@10 and QPS (best of rounds) per ef_search", headers, rows)
    return table


def print_headline(table, threads):
    rows, out = [], {}
    for lib in ("fixdex", *PEERS):
        cells = [lib]
        for t in threads:
            h = headline(table, lib, t)
            out[(lib, t)] = h
            cells += [fmt(h and h["ef"]), fmt(h and h["recall"], 4), fmt(h and h["qps"]) + star(h)]
        for t in threads:
            fx, peer = out.get(("fixdex", t)), out.get((lib, t))
            cells.append("" if lib == "fixdex" else fmt(ratio(fx and fx["qps"], peer and peer["qps"]), 2))
        rows.append(cells)
    headers = ["program"] + [f"{h} {t}t" for t in threads for h in ("ef", "recall", "QPS")] + \
              [f"fixdex/peer {t}t" for t in threads]
    print_table(f"Headline: best QPS with recall@10 >= {RECALL_BAR} (real set)", headers, rows)
    return out


def print_builds(recs, set_name, title, libs, cpus=None):
    rows, builds = [], {lib: best_build(recs, set_name, lib, cpus) for lib in libs}
    fx = builds.get("fixdex")
    for lib, b in builds.items():
        if b:
            rows.append([lib, fmt(b["ef_construction"]), fmt(b["seconds"], 2), fmt(b["vps"]) + star(b), fmt(b["util"], 2),
                         fmt(file_mib(recs, set_name, lib), 1),
                         "" if lib == "fixdex" else fmt(ratio(fx and fx["vps"], b["vps"]), 2)])
    print_table(f"{title}: build, 2 threads (best of rounds)",
                ["program", "ef_constr.", "seconds", "vectors/s", "util", "file MiB", "fixdex/peer vec/s"], rows)
    return builds


def print_opens(recs, set_name, title, libs, cpus=None):
    rows, opens = [], {lib: best_open(recs, set_name, lib, cpus) for lib in libs}
    fx = opens.get("fixdex")
    how = {"fixdex": "Index::open (mmap)", "hnswlib": "load_index (read)", "faiss": "read_index (read)",
           "usearch": "restore (copy)", "usearch-view": "restore(view=True) (mmap)"}
    for lib, o in opens.items():
        if o:
            rows.append([lib, how.get(lib, ""), fmt(o["ms"], 3) + star(o), fmt(o["first_ms"], 3), fmt(o["rss_before"], 1),
                         fmt(o["rss_after"], 1), "" if lib == "fixdex" else fmt(ratio(fx and fx["ms"], o["ms"]), 3)])
    print_table(f"{title}: open/load in a fresh process (best of repeats and rounds)",
                ["program", "how", "ms best", "ms first", "RSS before MiB", "RSS after MiB", "fixdex/peer ms"], rows)
    return opens


BACKENDS = {"fixdex": "f32", "fixdex-bf16": "bf16"}


def headline_embed(emb):
    """fixdex's headline embedding figure: the fastest of its backends measured in this run (f32,
    bf16) whose cosine to the reference stayed >= COS_BAR on every row; the f32 run when none did
    (flagged by `main`). Ratios in the table and the last line use it."""
    ok = [dict(emb[lib], backend=b) for lib, b in BACKENDS.items()
          if emb.get(lib) and emb[lib].get("cos_min") is not None and emb[lib]["cos_min"] >= COS_BAR]
    if ok:
        return max(ok, key=lambda e: e["sps"])
    return dict(emb["fixdex"], backend="f32") if emb.get("fixdex") else None


def print_embed(recs, cpus=None):
    rows, emb = [], {lib: best_embed(recs, lib, cpus) for lib in ("fixdex", "fixdex-bf16", "ort", "st")}
    fx = headline_embed(emb)
    names = {"fixdex": "fixdex bench embed (f32)", "fixdex-bf16": "fixdex bench embed --backend bf16",
             "ort": "onnxruntime fp32 (sorted, batch 32)", "st": "sentence-transformers (batch 32)"}
    for lib, e in emb.items():
        if e:
            mark = " (headline)" if fx and lib.startswith("fixdex") and BACKENDS[lib] == fx["backend"] else ""
            rows.append([names[lib] + mark, fmt(e["n"]), fmt(e["sps"], 1) + star(e), fmt(e["tps"]), fmt(e["util"], 2),
                         fmt(e["cos_min"], 7), fmt(e["cos_mean"], 7),
                         "" if lib.startswith("fixdex") else fmt(ratio(fx and fx["sps"], e["sps"]), 2)])
    print_table("Embedding (all-MiniLM-L6-v2, 2 threads, tokenisation included; best of rounds)",
                ["program", "snippets", "snippets/s", "tokens/s", "util", "cos_min vs ST", "cos_mean",
                 "fixdex/peer"], rows)
    return emb


def host_line(host):
    if not isinstance(host, dict):
        return "host: unknown"
    feats = ", ".join(f for f, on in (host.get("features") or {}).items() if on) or "none of avx2/fma/avx512/amx"
    return (f"host: {host.get('cpu_model')} ({host.get('vendor')}, {host.get('arch')}), {host.get('logical_cpus')} "
            f"logical CPUs ({host.get('usable_cpus')} usable); {feats}")


def append_keys(apd):
    """Last-line keys of the append timing. The issue's names (`append_s_1k_to_20k`, `rebuild_s_21k`)
    only when the run used those sizes; the generic ones always."""
    ap, rb = apd.get("append") or {}, apd.get("rebuild") or {}
    sizes = (ap.get("records"), ap.get("base_records"))
    return {
        "append_s": ap.get("seconds"), "append_records": ap.get("records"), "append_base_records": ap.get("base_records"),
        "rebuild_s": rb.get("seconds"), "rebuild_records": rb.get("records"),
        "append_over_rebuild": ratio(ap.get("seconds"), rb.get("seconds")),
        "append_s_1k_to_20k": ap.get("seconds") if sizes == (1000, 20000) else None,
        "rebuild_s_21k": rb.get("seconds") if sizes == (1000, 20000) else None,
    }


def figure_sides(heads, builds, opens, emb, fxe, b1m, o1m, threads, apd=None, cw=None):
    """{last-line key: {program: aggregated measurement}}: what each figure is made of."""
    f = {}
    for lib in PEERS:
        for t in threads:
            f[f"qps_ratio_{lib}_{t}t"] = {"fixdex": heads.get(("fixdex", t)), lib: heads.get((lib, t))}
        f[f"build_ratio_{lib}"] = {"fixdex": builds.get("fixdex"), lib: builds.get(lib)}
    f["open_ms_real"] = {"fixdex": opens.get("fixdex")}
    f["load_ms_real_hnswlib"] = {"hnswlib": opens.get("hnswlib")}
    f["load_ms_real_usearch_view"] = {"usearch-view": opens.get("usearch-view")}
    f["open_ms_1m"] = {"fixdex": o1m.get("fixdex")}
    f["load_ms_1m_hnswlib"] = {"hnswlib": o1m.get("hnswlib")}
    f["load_ms_1m_usearch_view"] = {"usearch-view": o1m.get("usearch-view")}
    f["build_vps_1m"] = {"fixdex": b1m.get("fixdex")}
    f["build_ratio_hnswlib_1m"] = {"fixdex": b1m.get("fixdex"), "hnswlib": b1m.get("hnswlib")}
    head = f"fixdex-{fxe['backend']}" if fxe.get("backend") == "bf16" else "fixdex"
    f["embed_snippets_per_s"] = {head: fxe or None}
    for peer in ("ort", "st"):
        f[f"embed_ratio_{peer}"] = {head: fxe or None, peer: emb.get(peer)}
    for lib, b in BACKENDS.items():
        f[f"embed_snippets_per_s_{b}"] = {lib: emb.get(lib)}
        for peer in ("ort", "st"):
            f[f"embed_ratio_{peer}_{b}"] = {lib: emb.get(lib), peer: emb.get(peer)}
    apd = apd or {}
    for key, call in (("append_s", "append"), ("append_s_1k_to_20k", "append"), ("rebuild_s", "rebuild"),
                      ("rebuild_s_21k", "rebuild")):
        f[key] = {"fixdex": apd.get(call)}
    f["append_over_rebuild"] = {"fixdex-append": apd.get("append"), "fixdex-rebuild": apd.get("rebuild")}
    for lib, states in (cw or {}).items():
        for state, slot in states.items():
            agg = {"why": slot.get("why") or [], "util": None}
            for key in cold_warm_keys({lib: {state: slot}}):
                f[key] = {lib: agg}
    return f


def inconsistencies(heads, threads, emb, fxe):
    """Figures that contradict each other or the headline rules, as sentences."""
    out = []
    ts = sorted(threads)
    for lib in ("fixdex", *PEERS):
        for lo, hi in zip(ts, ts[1:]):
            a, b = heads.get((lib, lo)), heads.get((lib, hi))
            if a and b and b["qps"] < a["qps"]:
                out.append(f"{lib}: headline QPS at {hi} threads ({b['qps']:,.0f}) < at {lo} thread"
                           f"{'s' if lo > 1 else ''} ({a['qps']:,.0f})")
    if fxe and (fxe.get("cos_min") is None or fxe["cos_min"] < COS_BAR):
        out.append(f"embedding: no fixdex backend reached cos_min >= {COS_BAR}; the f32 figure stands in")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    a = ap.parse_args(argv)
    recs = load(a.results)
    meta = next((r for r in recs if r.get("kind") == "meta"), {})
    end = next((r for r in recs if r.get("kind") == "meta-end"), {})
    p = meta.get("params", {})
    threads = p.get("threads", [1, 2])
    host = meta.get("host") if isinstance(meta.get("host"), dict) else None
    cpus = (host or {}).get("usable_cpus") or (host or {}).get("logical_cpus") or meta.get("cpus")
    print(f"# fixdex vs peers ({meta.get('mode')}; {meta.get('fixdex')}; {meta.get('cpus')} CPUs; "
          f"{p.get('rounds')} ANN rounds, {p.get('embed_rounds')} embedding rounds, interleaved)")
    print(host_line(host))
    print(f"load average (1/5/15 min): start {meta.get('loadavg_start')}, end {end.get('loadavg_end')}")
    print("versions: " + ", ".join(f"{k} {v}" for k, v in meta.get("versions", {}).items()))

    libs = ("fixdex", *PEERS)
    n, nq = set_size(recs, "real")
    title = f"ANN real set ({fmt(n)} x 384, {fmt(nq)} queries, k=10, M={p.get('m')}, " \
            f"ef_construction={p.get('ef_construction')})"
    table = ann_tables(recs, "real", title, libs, threads, cpus)
    heads = print_headline(table, threads)
    builds = print_builds(recs, "real", "ANN real set", libs, cpus)
    opens = print_opens(recs, "real", "ANN real set", (*libs, "usearch-view"), cpus)
    emb = print_embed(recs, cpus)
    apd = print_appends(recs, cpus)

    b1m = o1m = cw = {}
    if sel(recs, set="synth1m"):
        s_libs = tuple(p.get("synth_libs", ()))
        name = f"Synthetic {fmt(p.get('synth_n'))} x 384"
        t1m = f"{name} (random: recall reported, not targeted; M={p.get('m')}, " \
              f"ef_construction={p.get('synth_ef_construction')}, one build each)"
        ann_tables(recs, "synth1m", t1m, s_libs, [2], cpus)
        b1m = print_builds(recs, "synth1m", name, s_libs, cpus)
        o1m = print_opens(recs, "synth1m", name, (*s_libs, "usearch-view") if "usearch" in s_libs else s_libs, cpus)
        cw = cold_warm(recs)
        print_cold_warm(cw, name)

    def q(lib, t):
        return heads.get((lib, t)) and heads[(lib, t)]["qps"]

    def sps(lib):
        return (emb.get(lib) or {}).get("sps")

    fx1 = heads.get(("fixdex", 1)) or {}
    fxb, fxo, fxe = builds.get("fixdex") or {}, opens.get("fixdex") or {}, headline_embed(emb) or {}
    summary = {
        "mode": meta.get("mode"),
        "recall10": fx1.get("recall"), "ef_chosen": fx1.get("ef"),
        **{f"qps_ratio_{lib}_{t}t": ratio(q("fixdex", t), q(lib, t)) for lib in PEERS for t in threads},
        **{f"build_ratio_{lib}": ratio(fxb.get("vps"), (builds.get(lib) or {}).get("vps")) for lib in PEERS},
        "open_ms_real": fxo.get("ms"),
        "load_ms_real_hnswlib": (opens.get("hnswlib") or {}).get("ms"),
        "load_ms_real_usearch_view": (opens.get("usearch-view") or {}).get("ms"),
        "open_ms_1m": (o1m.get("fixdex") or {}).get("ms"),
        "rss_mb_after_open_1m": (o1m.get("fixdex") or {}).get("rss_after"),
        "load_ms_1m_hnswlib": (o1m.get("hnswlib") or {}).get("ms"),
        "rss_mb_after_load_1m_hnswlib": (o1m.get("hnswlib") or {}).get("rss_after"),
        "load_ms_1m_usearch_view": (o1m.get("usearch-view") or {}).get("ms"),
        "rss_mb_after_load_1m_usearch_view": (o1m.get("usearch-view") or {}).get("rss_after"),
        "build_vps_1m": (b1m.get("fixdex") or {}).get("vps"),
        "build_ratio_hnswlib_1m": ratio((b1m.get("fixdex") or {}).get("vps"), (b1m.get("hnswlib") or {}).get("vps")),
        "embed_snippets_per_s": fxe.get("sps"),
        "embed_ratio_ort": ratio(fxe.get("sps"), sps("ort")),
        "embed_ratio_st": ratio(fxe.get("sps"), sps("st")),
        "embed_cos_min": fxe.get("cos_min"),
        "embed_backend": fxe.get("backend"),
        "embed_headline_backend": fxe.get("backend"),
        **{f"embed_snippets_per_s_{b}": sps(lib) for lib, b in BACKENDS.items()},
        **{f"embed_cos_min_{b}": (emb.get(lib) or {}).get("cos_min") for lib, b in BACKENDS.items()},
        **{f"embed_ratio_{peer}_{b}": ratio(sps(lib), sps(peer)) for lib, b in BACKENDS.items() for peer in ("ort", "st")},
        **append_keys(apd),
        **cold_warm_keys(cw),
        "total_s": end.get("total_s"),
    }
    summary = {k: (round(v, 4) if isinstance(v, float) and "cos" not in k else v) for k, v in summary.items()}

    sides = figure_sides(heads, builds, opens, emb, fxe, b1m, o1m, threads, apd, cw)
    measured = {k: {prog: agg for prog, agg in progs.items() if agg} for k, progs in sides.items()
                if summary.get(k) is not None}
    utils = {k: {prog: agg.get("util") for prog, agg in progs.items() if agg.get("util") is not None}
             for k, progs in measured.items()}
    why = {k: [f"{prog}: {'; '.join(agg['why'])}" for prog, agg in progs.items() if agg.get("why")]
           for k, progs in measured.items()}
    why = {k: v for k, v in why.items() if v}
    odd = inconsistencies(heads, threads, emb, fxe)
    summary.update({
        "host": host,
        "loadavg_start": meta.get("loadavg_start"),
        "loadavg_end": end.get("loadavg_end"),
        "util": {k: v for k, v in utils.items() if v},
        "contended": sorted(why),
        "contention": why,
        "inconsistent": odd,
        "results_valid": not why and not odd,
    })
    starred = any(contention(r, cpus) for r in recs if r.get("kind") in ("search", "build", "open", "embed"))
    if why or odd or starred:
        print(f"\n{FOOTNOTE}.")
        for k, reasons in why.items():
            print(f"  {k}*: " + " | ".join(reasons))
        for line in odd:
            print(f"  inconsistent: {line}")
        if why or odd:
            print("results_valid: false -- rerun on a quiet machine before quoting these figures")
    print(f"\nraw JSON lines: {a.results}")
    print(json.dumps(summary))


if __name__ == "__main__":
    main(sys.argv[1:])
