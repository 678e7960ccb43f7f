#!/usr/bin/python3
"""export_encoders.py - export time of deep transformer stacks: Sequential of L
TransformerEncoderLayer(64, 4, 128, batch_first=True, activation="gelu"), exported by real
torch 2.14 (the sid chroot) with a dynamic batch and sequence length, then compiled by
`shapec export -v`, pinned to CPU 1; prints the graph's node count, the wall time, the peak
memory and the three slowest phases.

usage: bench/export_encoders.py SHAPEC [--out DIR] [--reuse] [BLOCKS ...]   (Debian's
        /usr/bin/python3; default 50 200; needs scripts/real-torch.sh --torch 2.14 setup)"""
import json
import os
import re
import subprocess
import sys
import time

from bench_common import slowest_phases, take_out_dir

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def export_all(out, blocks):
    """In the torch 2.14 chroot: OUT/encoders_L.pt2 for each L."""
    import torch
    from torch.export import Dim, export, save
    for n in blocks:
        torch.manual_seed(0)
        layer = lambda: torch.nn.TransformerEncoderLayer(64, 4, 128, batch_first=True, activation="gelu")
        model = torch.nn.Sequential(*[layer() for _ in range(n)]).eval()
        ds = {0: Dim("batch", min=1, max=64), 1: Dim("seq", min=2, max=512)}
        with torch.no_grad():
            ep = export(model, (torch.randn(2, 16, 64),), dynamic_shapes=(ds,))
        save(ep, os.path.join(out, f"encoders_{n}.pt2"))


def main():
    if sys.argv[1:2] == ["--export"]:
        export_all(sys.argv[2], [int(b) for b in sys.argv[3:]])
        return
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    shapec = os.path.abspath(sys.argv[1])
    args = sys.argv[2:]
    out = take_out_dir(args, "/tmp/shapec-encoders")
    reuse = "--reuse" in args
    blocks = [int(a) for a in args if a != "--reuse"] or [50, 200]
    missing = [b for b in blocks if not (reuse and os.path.exists(os.path.join(out, f"encoders_{b}.pt2")))]
    if missing:
        subprocess.run(["bash", os.path.join(SRC, "scripts", "real-torch.sh"), "run", "bench/export_encoders.py",
                        "--export", out] + [str(b) for b in missing], cwd=SRC, check=True)
    print("| blocks | graph nodes | export s | peak memory MB | slowest phases |\n|---|---|---|---|---|")
    for b in blocks:
        model = os.path.join(out, f"encoders_{b}.pt2")
        t0 = time.perf_counter()
        r = subprocess.run(["taskset", "-c", "1", "/usr/bin/time", "-f", "peak_kb %M", shapec, "export", model, "-o",
                            os.path.join(out, f"out_{b}"), "-q", "-v"], capture_output=True, text=True, check=True)
        total = time.perf_counter() - t0
        top = slowest_phases(r.stderr)
        peak = int(re.search(r"peak_kb (\d+)", r.stderr).group(1)) // 1024
        nodes = len(json.loads(subprocess.run(["unzip", "-p", model, "*/models/model.json"], capture_output=True,
                                              check=True).stdout)["graph_module"]["graph"]["nodes"])
        print(f"| {b} | {nodes} | {total:.2f} | {peak} | {top} |", flush=True)


if __name__ == "__main__":
    main()
