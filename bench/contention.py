#!/usr/bin/python3
"""contention.py - a two-thread call when another busy process shares one of its cores
(issue 62: shared cores are the normal case in a container).

For each zoo model and input: the library's time on one thread (pinned to CPU 0), on two
threads (CPUs 0-1), and on two threads while a busy loop runs pinned to CPU 1; each in its
own process, medians over at least a second.  The goal: the loaded two-thread time within
1.5x of the one-thread time.

usage: /usr/bin/python3 bench/contention.py SHAPEC [--only=mlp,...] [--out DIR]"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import timeit  # noqa: E402  (sets OPENBLAS_CORETYPE first)

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(SRC, "tools"))

ROWS = {"mlp": [[1, 784], [8, 784]], "encoder": [[1, 128, 256]], "resnet18": [[1, 3, 224, 224]],
        "mobilenet_v2": [[1, 3, 224, 224]]}


def arg(name, default=None):
    for a in sys.argv:
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    return default


def one_side(lib_path, shape, threads):
    """In a pinned child: the library's median ms on `shape`."""
    import numpy as np
    from shapec_tools.model_library import ModelLibrary
    lib = ModelLibrary(lib_path)
    lib.set_num_threads(threads)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    run, _ = lib.prepare([x])
    print(json.dumps({"ms": timeit(run, budget=1.0, min_runs=20)}))


def timed(lib_path, shape, threads, cpus):
    r = subprocess.run(["taskset", "-c", cpus, sys.executable, os.path.abspath(__file__), "--side", lib_path,
                        json.dumps(shape), str(threads)], capture_output=True, text=True, check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])["ms"]


def main():
    if sys.argv[1] == "--side":
        return one_side(sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4]))
    shapec = os.path.abspath(sys.argv[1])
    models = arg("--only", ",".join(ROWS)).split(",")
    out = arg("--out") or tempfile.mkdtemp(prefix="shapec-contention-")
    from shapec_tools import zoo
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    print(f"{cpu}, {os.cpu_count()} CPUs; one thread on CPU 0, two on CPUs 0-1, two beside a busy loop pinned to CPU 1")
    print("| model | input | 1 thread ms | 2 threads ms | 2 threads, CPU 1 busy, ms | busy / 1 thread |")
    print("|---|---|---|---|---|---|")
    for m in models:
        d = os.path.join(out, m)
        os.makedirs(d, exist_ok=True)
        files = zoo.program_files(m, d)
        subprocess.run([shapec, "export", *files, "-o", os.path.join(d, "lib"), "-q"], check=True)
        lib = os.path.join(d, "lib", "model.so")
        for shape in ROWS[m]:
            one = timed(lib, shape, 1, "0")
            two = timed(lib, shape, 2, "0,1")
            busy = subprocess.Popen(["taskset", "-c", "1", "sh", "-c", "while :; do :; done"])
            try:
                loaded = timed(lib, shape, 2, "0,1")
            finally:
                busy.kill()
                busy.wait()
            print(f"| {m} | {shape} | {one:.3f} | {two:.3f} | {loaded:.3f} | **{loaded / one:.2f}** |", flush=True)


if __name__ == "__main__":
    main()
