#!/usr/bin/python3
"""Two or more builds of one model, alternated in one process: the way to see what a change
to shapec is worth, since this machine's speed drifts between runs by more than most
changes.  Each library is warmed up, then the libraries take turns, ROUNDS rounds of about
0.1 s each, and each one's min and median per call are printed.  Then, in a fresh process
per library, the peak resident memory that its calls added.

usage: ab_libraries.py INPUT.npy THREADS LIB.so LIB.so [...]   (pin it with taskset)"""
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from shapec_tools.model_library import ModelLibrary  # noqa: E402

ROUNDS = 12


def peak_rss_kib():
    """This process's peak resident memory (VmHWM: unlike ru_maxrss, not inherited from the
    parent across fork and exec)."""
    with open("/proc/self/status") as fp:
        return next(int(line.split()[1]) for line in fp if line.startswith("VmHWM:"))


def added_memory(x_path, threads, lib_path):
    """In this process (started fresh): MiB of peak RSS that five calls added (weights
    included, which the first call pages in)."""
    x = np.load(x_path)
    lib = ModelLibrary(lib_path)
    lib.set_num_threads(threads)
    before = peak_rss_kib()
    run, _ = lib.prepare([x])
    for _ in range(5):
        run()
    return (peak_rss_kib() - before) / 1024


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--memory":
        print(f"{added_memory(sys.argv[2], int(sys.argv[3]), sys.argv[4]):.1f}")
        return
    x_path, threads, libs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    x = np.load(x_path)
    runs = []
    for path in libs:
        lib = ModelLibrary(path)
        lib.set_num_threads(threads)
        run, _ = lib.prepare([x])
        for _ in range(10):
            run()
        runs.append((lib, run))
    times = {path: [] for path in libs}
    for _ in range(ROUNDS):
        for path, (_, run) in zip(libs, runs):
            start, n = time.perf_counter(), 0
            while time.perf_counter() - start < 0.1:
                run()
                n += 1
            times[path].append((time.perf_counter() - start) / n * 1e3)
    for path in libs:
        t = sorted(times[path])
        mem = subprocess.run([sys.executable, __file__, "--memory", x_path, str(threads), path],
                             capture_output=True, text=True).stdout.strip()
        print(f"{path}: min {t[0]:.3f} ms, median {t[len(t) // 2]:.3f} ms; its calls added {mem} MiB of peak RSS")


if __name__ == "__main__":
    main()
