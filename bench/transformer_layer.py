#!/usr/bin/python3
"""transformer_layer.py - torch's own nn.TransformerEncoderLayer (not the zoo's encoder, which
spells attention out in basic ops): d_model 256, 4 heads, feed-forward 1024, GELU, batch
first, exported by torch 2.14 (the sid chroot) with a dynamic batch and sequence, its graph
holding scaled_dot_product_attention and the head split as views, selects and `contiguous`.
One thread, CPU 1: torch 2.14 eager (median of 15 calls, in the chroot) against
`shapec run --bench 20` (median) on the same [B, 128, 256] input, with shapec's largest
difference from torch's output.

usage: bench/transformer_layer.py SHAPEC [--out DIR] [BATCH ...]   (Debian's /usr/bin/python3;
        default batch 1 8; needs scripts/real-torch.sh --torch 2.14 setup)"""
import os
import re
import subprocess
import sys

from bench_common import take_out_dir

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def torch_side(out, batches):
    """In the chroot: the export, the inputs, torch's outputs and its eager times."""
    import time

    import numpy as np
    import torch
    from torch.export import Dim, export, save
    torch.manual_seed(0)
    torch.set_num_threads(1)
    m = torch.nn.TransformerEncoderLayer(256, 4, 1024, batch_first=True, activation="gelu", dropout=0.0).eval()
    ds = {0: Dim("batch", min=1, max=64), 1: Dim("seq", min=2, max=512)}
    with torch.no_grad():
        save(export(m, (torch.randn(2, 16, 256),), dynamic_shapes=(ds,)), os.path.join(out, "layer.pt2"))
        for b in batches:
            x = torch.randn(b, 128, 256)
            np.save(os.path.join(out, f"x_{b}.npy"), x.numpy())
            np.save(os.path.join(out, f"want_{b}.npy"), m(x).numpy())
            for _ in range(3):
                m(x)
            ts = []
            for _ in range(15):
                t = time.perf_counter()
                m(x)
                ts.append(time.perf_counter() - t)
            print(f"eager {b} {sorted(ts)[7] * 1e3:.3f}", flush=True)


def main():
    if sys.argv[1:2] == ["--torch"]:
        torch_side(sys.argv[2], [int(b) for b in sys.argv[3:]])
        return
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    import numpy as np
    shapec = os.path.abspath(sys.argv[1])
    args = sys.argv[2:]
    out = take_out_dir(args, "/tmp/shapec-transformer-layer")
    batches = [int(a) for a in args] or [1, 8]
    r = subprocess.run(["taskset", "-c", "1", "bash", os.path.join(SRC, "scripts", "real-torch.sh"), "run",
                        "bench/transformer_layer.py", "--torch", out] + [str(b) for b in batches], cwd=SRC, check=True,
                       capture_output=True, text=True)
    eager = {int(b): float(ms) for b, ms in re.findall(r"eager (\d+) ([0-9.]+)", r.stdout)}
    subprocess.run([shapec, "export", os.path.join(out, "layer.pt2"), "-o", os.path.join(out, "shapec"), "-q"], check=True)
    print("| input | shapec (ms) | torch 2.14 eager (ms) | shapec / eager | max error / max value |\n|---|---|---|---|---|")
    for b in batches:
        res = os.path.join(out, f"result_{b}")
        run = subprocess.run(["taskset", "-c", "1", shapec, "run", os.path.join(out, "shapec", "model.so"), "--input",
                              "src=" + os.path.join(out, f"x_{b}.npy"), "--bench", "20", "--out", res],
                             env=dict(os.environ, SHAPEC_NUM_THREADS="1"), capture_output=True, text=True, check=True)
        ms = float(re.search(r"median ([0-9.]+) us", run.stdout + run.stderr).group(1)) / 1e3
        got, want = np.load(os.path.join(res, "output_0.npy")), np.load(os.path.join(out, f"want_{b}.npy"))
        err = float(np.max(np.abs(got - want)) / np.max(np.abs(want)))
        print(f"| [{b}, 128, 256] | {ms:.3f} | {eager[b]:.3f} | {ms / eager[b]:.2f} | {err:.1e} |", flush=True)


if __name__ == "__main__":
    main()
