"""Helpers shared by the peer benchmarks: TEXMEX vector files, recall, timing, RSS, JSON lines."""
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np


def read_fvecs(path):
    """TEXMEX .fvecs (int32 dim, then dim float32, per vector) -> C-contiguous float32 [n, dim]."""
    raw = np.memmap(path, dtype=np.int32, mode="r")
    dim = int(raw[0])
    return np.ascontiguousarray(raw.view(np.float32).reshape(-1, dim + 1)[:, 1:])


def read_ivecs(path):
    """TEXMEX .ivecs -> int32 [n, k]."""
    raw = np.fromfile(path, dtype=np.int32)
    k = int(raw[0])
    return raw.reshape(-1, k + 1)[:, 1:]


def write_fvecs(path, a):
    a = np.ascontiguousarray(a, dtype=np.float32)
    out = np.empty((a.shape[0], a.shape[1] + 1), dtype=np.float32)
    out[:, 0] = np.array([a.shape[1]], dtype=np.int32).view(np.float32)[0]
    out[:, 1:] = a
    out.tofile(path)


def write_ivecs(path, a):
    a = np.ascontiguousarray(a, dtype=np.int32)
    out = np.empty((a.shape[0], a.shape[1] + 1), dtype=np.int32)
    out[:, 0] = a.shape[1]
    out[:, 1:] = a
    out.tofile(path)


def recall_at(found, gt, k):
    """|returned top-k ∩ exact top-k| / k, averaged over queries (ids, not distance ties)."""
    found = np.asarray(found)[:, :k]
    hits = sum(len(set(f.tolist()) & set(g[:k].tolist())) for f, g in zip(found, gt))
    return hits / (len(gt) * k)


def timed(fn):
    """(wall seconds, process CPU seconds, result) of fn() -- CPU time covers all threads."""
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - w, time.process_time() - c, out


def rss_mb():
    """Resident set size of this process in MiB (VmRSS), or None off Linux."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def emit(rec):
    """One JSON line on stdout (what the orchestrator parses)."""
    print(json.dumps(rec), flush=True)


def run_json(cmd, env=None, log=sys.stderr):
    """Run cmd; return (JSON objects from its stdout lines, wall s, child CPU s).

    CPU seconds come from RUSAGE_CHILDREN before/after, so they cover the child's threads.
    Non-JSON stdout lines and all stderr go to `log`.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(cmd, env={**os.environ, **(env or {})}, stdout=subprocess.PIPE, stderr=log, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise RuntimeError(f"command failed ({proc.returncode}): {' '.join(map(str, cmd))}\n{proc.stdout[-2000:]}")
    recs = []
    for line in proc.stdout.splitlines():
        try:
            recs.append(json.loads(line))
        except json.JSONDecodeError:
            print(line, file=log)
    return recs, wall, cpu
