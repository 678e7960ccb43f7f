"""bench_common.py - what the benchmarks share: the OpenBLAS core type both sides use, and
the timer.  Importing it sets OPENBLAS_CORETYPE, so import it before numpy and torch."""
import os
import statistics
import time


def openblas_core():
    """The OPENBLAS_CORETYPE a shapec library picks on this CPU (runtime/gemm.c): the peer
    gets the same kernels, as OpenBLAS's own detection falls back to SSE3 on CPUs it does
    not know (virtual machines)."""
    flags = set()
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    if {"avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd"} <= flags:
        return "SkylakeX"
    if {"avx2", "fma"} <= flags:
        return "Haswell"
    return "Sandybridge" if "avx" in flags else None



if openblas_core():  # before numpy and torch load OpenBLAS
    os.environ.setdefault("OPENBLAS_CORETYPE", openblas_core())


def timeit(fn, budget=0.6, min_runs=3):
    time.sleep(0.3)  # let the previous side's spinning worker threads (OpenMP, OpenBLAS) go idle
    fn()
    fn()
    times, start = [], time.perf_counter()
    while len(times) < min_runs or time.perf_counter() - start < budget:
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        if len(times) >= 2000:
            break
    return statistics.median(times) * 1e3


def median_ms(fn, runs, warmup=2):
    """The median of `runs` calls of fn after `warmup` calls, in ms: a fixed count of calls,
    where timeit above fills a time budget."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return sorted(times)[runs // 2] * 1e3


def slowest_phases(stderr, k=3):
    """The k slowest phases `shapec export -v` reported on stderr ("shapec: [  0.1 s] NAME: 0.02 s"),
    as "NAME 0.02 s, ..."."""
    phases = []
    for line in stderr.splitlines():
        if line.startswith("shapec: ["):
            name, secs = line.split("] ", 1)[1].rsplit(": ", 1)
            phases.append((float(secs.split()[0]), name))
    return ", ".join(f"{name} {s:.2f} s" for s, name in sorted(phases, reverse=True)[:k])


def take_out_dir(args, default):
    """`--out DIR` removed from the list args (in place), its DIR returned, created; else default."""
    out = default
    if "--out" in args:
        i = args.index("--out")
        out = args[i + 1]
        del args[i:i + 2]
    os.makedirs(out, exist_ok=True)
    return out
