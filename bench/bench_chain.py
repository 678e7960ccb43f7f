#!/usr/bin/python3
"""bench_chain.py - the elementwise chain gelu(x * w + b) + x on a [4096, 4096] float32
input against its floors, in one run: the library called through its C ABI with the same
input and output arrays each time (no page faults on a fresh output), beside
- np.copyto of the same 64 MB into a reused buffer (64 MB read, 64 MB written; at this
  size glibc's memcpy reads each destination line before writing it, as a cached store
  does);
- build/stream_copy (bench/stream_copy.c, beside SHAPEC): the same copy with streaming
  stores, four pages at a time, on as many threads: the memory-bandwidth floor;
- the library on 32 rows (1 MB in and out, in the L2 cache), times 128: its arithmetic
  alone, the floor that no memory traffic can lower.
Pinned to CPU 1 (one thread) and CPUs 0-1 (two); medians of 15 calls (of 100 calls for the
32 rows), in ROUNDS rounds (5) that alternate the library and the floors; each cell is the
median of its rounds, and each round's ratio is printed beside.

usage: bench/bench_chain.py SHAPEC [--rounds N]   (Debian's /usr/bin/python3, with PyTorch 1.13)
(build/stream_copy must exist beside SHAPEC: cmake --build build --target stream_copy)"""
import os
import statistics
import subprocess
import sys
import tempfile

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def measure(lib_path, threads):
    """Runs in a pinned child: median ms of the library, of np.copyto, and of the library on
    32 rows times 128."""
    import time

    import numpy as np
    sys.path.insert(0, os.path.join(SRC, "tools"))
    from shapec_tools.model_library import ModelLibrary
    lib = ModelLibrary(lib_path)
    lib.set_num_threads(threads)
    x = np.random.default_rng(0).standard_normal((4096, 4096), dtype=np.float32)
    run, outs = lib.prepare([x])
    floor_dst = np.empty_like(x)

    run_cached, _ = lib.prepare([np.ascontiguousarray(x[:32])])

    def median(fn, calls=1):
        for _ in range(3):
            fn()
        times = []
        for _ in range(15):
            t = time.perf_counter()
            for _ in range(calls):
                fn()
            times.append((time.perf_counter() - t) / calls)
        return sorted(times)[7] * 1e3

    return median(run), median(lambda: np.copyto(floor_dst, x)), median(run_cached, 100) * 4096 / 32


def main():
    if sys.argv[1:2] == ["--child"]:
        print(" ".join(f"{v:.2f}" for v in measure(sys.argv[2], int(sys.argv[3]))))
        return
    import torch
    sys.path.insert(0, os.path.join(SRC, "tools"))
    from shapec_tools.convert import convert
    from shapec_tools.zoo import Chain

    shapec = os.path.abspath(sys.argv[1])
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    with tempfile.TemporaryDirectory() as tmp:
        torch.manual_seed(0)
        path = convert(Chain().eval(), [torch.randn(64, 4096)], tmp, input_names=["x"])
        spec = os.path.join(tmp, "spec.json")
        with open(spec, "w") as fp:
            fp.write('{"dynamic_shapes": {"x": ["_DimHint.AUTO", null]}}')
        subprocess.run([shapec, "export", path, "--dynamic", spec, "-o", os.path.join(tmp, "out"), "-q"], check=True)
        stream_copy = os.path.join(os.path.dirname(shapec), "stream_copy")
        if not os.access(stream_copy, os.X_OK):
            sys.exit(f"bench_chain.py: {stream_copy} is missing: build it (cmake --build build --target stream_copy)")
        rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 5
        # rounds alternate the library and the floors, so that a noisy minute on this shared
        # machine reaches both sides of a ratio; each cell is the median of its rounds
        cells = {1: [], 2: []}
        for _ in range(rounds):
            for threads, cpus in ((1, "1"), (2, "0,1")):
                r = subprocess.run(["taskset", "-c", cpus, sys.executable, os.path.abspath(__file__), "--child",
                                    os.path.join(tmp, "out", "model.so"), str(threads)], capture_output=True,
                                   text=True, check=True)
                ms, copyto, arithmetic = (float(v) for v in r.stdout.split())
                streamed = float(subprocess.run(["taskset", "-c", cpus, stream_copy, str(threads)],
                                                capture_output=True, text=True, check=True).stdout)
                cells[threads].append((ms, copyto, streamed, arithmetic))
        print(f"gelu(x * w + b) + x on [4096, 4096] float32, {cpu}, medians of {rounds} rounds")
        print("| threads | shapec ms | np.copyto ms | streaming copy ms | arithmetic in cache ms "
              "| shapec / np.copyto | shapec / streaming copy | each round's shapec / streaming copy |")
        print("|---|---|---|---|---|---|---|---|")
        for threads, rows in cells.items():
            ms, copyto, streamed, arithmetic = (statistics.median(col) for col in zip(*rows))
            each = ", ".join(f"{row[0] / row[2]:.2f}" for row in rows)
            print(f"| {threads} | {ms:.2f} | {copyto:.2f} | {streamed:.2f} | {arithmetic:.2f} | {ms / copyto:.2f} "
                  f"| {ms / streamed:.2f} | {each} |")


main()
