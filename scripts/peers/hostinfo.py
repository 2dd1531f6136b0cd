"""The host and its load, standard library only (report.py and the Rust tests use it without the venv).

host_info(): the object recorded as `host` in every raw record and in the last-line JSON, the same
shape as `fixdex bench` prints (src/cli/bench.rs, `host()`): figures from different CPUs are never
comparable. machine_busy_s() and proc_cpu_s() let run.py measure how much CPU *other* processes
used while a figure was measured (`others_cpu`), which the 1-minute load average cannot tell: the
benchmark's own previous calls keep it near the thread count on a small machine.
"""
import os
import platform

FEATURES = ("avx2", "fma", "avx512f", "avx512_bf16", "amx_bf16")
X86 = ("x86_64", "amd64", "i386", "i686", "x86")


def host_info(cpuinfo="/proc/cpuinfo"):
    """{cpu_model, vendor, logical_cpus, usable_cpus, arch, os, features{avx2, fma, avx512f,
    avx512_bf16, amx_bf16}}: /proc/cpuinfo where there is one (features = its flags, as the kernel
    advertises them), else platform; unknown values are None, features off x86 are False."""
    fields, flags, online = {}, None, 0
    try:
        with open(cpuinfo) as f:
            for line in f:
                key, _, value = line.partition(":")
                key, value = key.strip(), value.strip()
                if key == "processor":
                    online += 1
                elif key in ("model name", "vendor_id") and key not in fields:
                    fields[key] = value
                elif key == "flags" and flags is None:
                    flags = set(value.split())
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count()
    arch = platform.machine()
    if arch.lower() not in X86:
        features = {f: False for f in FEATURES}
    else:
        features = {f: (None if flags is None else f in flags) for f in FEATURES}
    return {
        "cpu_model": fields.get("model name") or platform.processor() or None,
        "vendor": fields.get("vendor_id"),
        "logical_cpus": online or os.cpu_count(),
        "usable_cpus": usable,
        "arch": arch,
        "os": platform.system().lower(),
        "features": features,
    }


def loadavg():
    """[load1, load5, load15] rounded to 2 places, or None where the OS has none."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def _clk_tck():
    try:
        return os.sysconf("SC_CLK_TCK")
    except (AttributeError, ValueError, OSError):
        return 100


def machine_busy_s():
    """CPU-seconds all CPUs of the machine have been busy since boot (/proc/stat: user, nice, system,
    irq, softirq and steal -- a hypervisor's steal is contention too), or None off Linux."""
    try:
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = (v + [0] * 8)[:8]
    return (user + nice + system + irq + softirq + steal) / _clk_tck()


def proc_cpu_s(pid):
    """CPU-seconds (utime + stime) of process `pid` so far, or None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            rest = f.read().rsplit(")", 1)[1].split()
        return (int(rest[11]) + int(rest[12])) / _clk_tck()
    except (OSError, ValueError, IndexError):
        return None


def others_cpu(busy0, busy1, own_cpu_s, wall_s):
    """CPUs' worth of work done by other processes over a call: (machine busy - own CPU) / wall,
    never below 0; None when a reading is missing."""
    if None in (busy0, busy1, own_cpu_s) or not wall_s:
        return None
    return round(max(0.0, (busy1 - busy0 - own_cpu_s) / wall_s), 2)
