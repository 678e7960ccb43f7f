#!/usr/bin/python3
"""bench_chain.py - the elementwise chain gelu(x * w + b) + x on a [4096, 4096] float32
input against the memory-bandwidth floor, in one run: the library called through its C
ABI with the same input and output arrays each time (no page faults on a fresh output),
beside np.copyto of the same 64 MB into a reused buffer (64 MB read, 64 MB written).
Pinned to CPU 1 (one thread) and CPUs 0-1 (two); medians of 15 calls.

usage: bench/bench_chain.py SHAPEC   (Debian's /usr/bin/python3, with PyTorch 1.13)"""
import os
import subprocess
import sys
import tempfile

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def measure(lib_path, threads):
    """Runs in a pinned child: median ms of the library and of np.copyto."""
    import time

    import numpy as np
    sys.path.insert(0, os.path.join(SRC, "tools"))
    from shapec_tools.model_library import ModelLibrary
    lib = ModelLibrary(lib_path)
    lib.set_num_threads(threads)
    x = np.random.default_rng(0).standard_normal((4096, 4096), dtype=np.float32)
    run, outs = lib.prepare([x])
    floor_dst = np.empty_like(x)

    def median(fn):
        for _ in range(3):
            fn()
        times = []
        for _ in range(15):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        return sorted(times)[7] * 1e3

    return median(run), median(lambda: np.copyto(floor_dst, x))


def main():
    if sys.argv[1:2] == ["--child"]:
        ms, floor = measure(sys.argv[2], int(sys.argv[3]))
        print(f"{ms:.2f} {floor:.2f}")
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
        print(f"gelu(x * w + b) + x on [4096, 4096] float32, {cpu}")
        print("| threads | shapec ms | np.copyto ms (the floor) | shapec / floor |")
        print("|---|---|---|---|")
        for threads, cpus in ((1, "1"), (2, "0,1")):
            r = subprocess.run(["taskset", "-c", cpus, sys.executable, os.path.abspath(__file__), "--child",
                                os.path.join(tmp, "out", "model.so"), str(threads)], capture_output=True, text=True,
                               check=True)
            ms, floor = (float(v) for v in r.stdout.split())
            print(f"| {threads} | {ms:.2f} | {floor:.2f} | {ms / floor:.2f} |")


main()
