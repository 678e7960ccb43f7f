#!/usr/bin/python3
"""small_models.py - the call time of tiny models, and reductions beside PyTorch 1.13 eager.

Tiny models (a linear layer, a two-layer MLP with tanh, an elementwise sigmoid, layer norm
with softmax, a 3x3 convolution summed over its pixels, a transposing reshape, a small CNN
(strided convolution, batch norm, ReLU, max pool, linear), multi-head attention over four
tokens, an embedding averaged over a sequence; then a depthwise convolution, a 2x2 average
pool, nearest upsampling by 2, multi-head attention of 3 queries over 5 keys, softmax(x x^T)
x, an MLP classifier with softmax, a 1-D convolution, nn.TransformerEncoderLayer(8, 2, 16),
x / sqrt(mean(x^2) over channels), a CNN with batch norm and global pooling, a transposed
convolution): each
exported by torch 2.14 with a dynamic batch, compiled by shapec, and timed with
build/bench_checks (shapec_model_run: the guard checks and the computation, zero-filled
inputs), the median over batches of calls, in nanoseconds.

Reductions (sum, mean, amax, var over the last dim, the middle one, or (2, 3)) on inputs of
4-8 MB: shapec's library and torch 1.13 eager on the same array, one thread, medians of 30
calls, with shapec's largest difference from a float64 reference relative to its largest
value.

usage: bench/small_models.py SHAPEC [--out DIR] [--reuse]   (Debian's /usr/bin/python3;
        needs scripts/real-torch.sh --torch 2.14 setup; pinned to CPU 1 here)"""
import os
import re
import subprocess
import sys

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

TINY = {  # name: input shapes for bench_checks
    "linear": ["2x4"], "mlp_tanh": ["2x8"], "sigmoid": ["2x5", "2x5"], "norm_softmax": ["3x8"],
    "conv_sum": ["2x1x5x5"], "reshape": ["2x3x4"], "tiny_cnn": ["2x1x8x8"], "attention": ["2x4x8"],
    "embedding_mean": ["2x3"],
    # added in the eighth Zen 4 session, models the nine above did not reach
    "depthwise": ["2x4x6x6"], "avg_pool": ["2x3x8x8"], "upsample": ["2x2x4x4"], "cross_attention": ["2x3x8", "2x5x8"],
    "self_scores": ["2x4x8"], "classifier": ["2x8"], "conv1d": ["2x2x16"],
    "encoder_layer": ["2x4x8"], "rms_channels": ["2x4x4x4"], "cnn_pool": ["2x3x6x6"], "conv_transpose": ["2x2x4x4"],
}
REDUCTIONS = {  # name: (shape, what it computes)
    "sum_last": ((256, 4096), "x.sum(-1)"), "mean_mid": ((64, 512, 64), "x.mean(1)"),
    "amax_last": ((256, 4096), "x.amax(-1)"), "var_last": ((256, 4096), "x.var(-1)"),
    "mean_hw": ((8, 256, 28, 28), "x.mean((2, 3))"),
}


def export_all(out):
    """In the torch 2.14 chroot: every model to OUT/NAME.pt2."""
    import torch
    from torch.export import Dim, export, save
    torch.manual_seed(0)

    class Wrap(torch.nn.Module):
        def __init__(self, fn, **mods):
            super().__init__()
            self.fn = fn
            for k, m in mods.items():
                setattr(self, k, m)

        def forward(self, *xs):
            return self.fn(self, *xs)

    nn = torch.nn
    F = torch.nn.functional
    tiny = {
        "linear": Wrap(lambda s, x: torch.relu(s.l(x)), l=nn.Linear(4, 3)),
        "mlp_tanh": Wrap(lambda s, x: s.b(torch.tanh(s.a(x))), a=nn.Linear(8, 16), b=nn.Linear(16, 2)),
        "sigmoid": Wrap(lambda s, x, y: (x * 2 + y).sigmoid()),
        "norm_softmax": Wrap(lambda s, x: torch.softmax(s.n(x), -1), n=nn.LayerNorm(8)),
        "conv_sum": Wrap(lambda s, x: s.c(x).relu().sum(dim=(2, 3)), c=nn.Conv2d(1, 2, 3, padding=1)),
        "reshape": Wrap(lambda s, x: x.view(x.shape[0], -1).transpose(0, 1).contiguous() + 1),
        "tiny_cnn": Wrap(lambda s, x: s.l(torch.flatten(F.max_pool2d(torch.relu(s.n(s.c(x))), 2), 1)),
                         c=nn.Conv2d(1, 4, 3, stride=2, padding=1), n=nn.BatchNorm2d(4), l=nn.Linear(16, 3)),
        "attention": Wrap(lambda s, x: s.a(x, x, x, need_weights=False)[0], a=nn.MultiheadAttention(8, 2, batch_first=True)),
        "embedding_mean": Wrap(lambda s, x: s.e(x).mean(1), e=nn.Embedding(10, 4)),
        "depthwise": Wrap(lambda s, x: s.c(x), c=nn.Conv2d(4, 4, 3, padding=1, groups=4)),
        "avg_pool": Wrap(lambda s, x: F.avg_pool2d(x, 2)),
        "upsample": Wrap(lambda s, x: F.interpolate(x, scale_factor=2, mode="nearest")),
        "cross_attention": Wrap(lambda s, x, y: s.a(x, y, y, need_weights=False)[0],
                                a=nn.MultiheadAttention(8, 2, batch_first=True)),
        "self_scores": Wrap(lambda s, x: torch.softmax(x @ x.transpose(-1, -2), -1) @ x),
        "classifier": Wrap(lambda s, x: torch.softmax(s.b(F.relu(s.a(x))), -1), a=nn.Linear(8, 16), b=nn.Linear(16, 4)),
        "conv1d": Wrap(lambda s, x: torch.relu(s.c(x)), c=nn.Conv1d(2, 4, 3, padding=1)),
        "encoder_layer": Wrap(lambda s, x: s.l(x), l=nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)),
        "rms_channels": Wrap(lambda s, x: x / (x.pow(2).mean(1, keepdim=True) + 1e-8).sqrt()),
        "cnn_pool": Wrap(lambda s, x: s.f(torch.flatten(F.adaptive_avg_pool2d(F.relu(s.n(s.c(x))), 1), 1)),
                         c=nn.Conv2d(3, 4, 3, padding=1), n=nn.BatchNorm2d(4), f=nn.Linear(4, 2)),
        "conv_transpose": Wrap(lambda s, x: s.c(x), c=nn.ConvTranspose2d(2, 2, 2, stride=2)),
    }
    examples = {"embedding_mean": lambda shape: torch.randint(0, 10, shape)}
    batch = Dim("batch", min=1, max=4096)
    for name, m in tiny.items():
        make = examples.get(name, lambda shape: torch.randn(*shape))
        args = tuple(make([int(d) for d in s.split("x")]) for s in TINY[name])
        ds = tuple({0: batch} for _ in args)
        save(export(m.eval(), args, dynamic_shapes=(ds,)), os.path.join(out, name + ".pt2"))  # (ds,): *xs
    for name, (shape, expr) in REDUCTIONS.items():
        m = Wrap(eval("lambda s, x: " + expr))
        save(export(m, (torch.randn(*shape),), dynamic_shapes=(({0: batch},),)), os.path.join(out, name + ".pt2"))


def time_reductions(out):
    """Pinned child: one table row per reduction."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import bench_common  # sets OPENBLAS_CORETYPE before numpy and torch
    import numpy as np
    import torch
    sys.path.insert(0, os.path.join(SRC, "tools"))
    from shapec_tools.model_library import ModelLibrary
    torch.set_num_threads(1)

    def median(fn):
        return bench_common.median_ms(fn, 30, warmup=3)

    for name, (shape, expr) in REDUCTIONS.items():
        x = np.random.default_rng(0).standard_normal(shape, dtype=np.float32)
        lib = ModelLibrary(os.path.join(out, name, "model.so"))
        lib.set_num_threads(1)
        run, outs = lib.prepare([x])
        run()
        want = eval("lambda x: " + expr)(torch.from_numpy(x).double()).numpy()
        err = float(np.max(np.abs(outs[0] - want)) / np.max(np.abs(want)))
        eager = eval("lambda x: " + expr)
        tx = torch.from_numpy(x)
        ms, ms_eager = median(run), median(lambda: eager(tx))
        print(f"| `{expr}` | {list(shape)} | {ms:.3f} | {ms_eager:.3f} | {ms / ms_eager:.2f} | {err:.1e} |")


def main():
    if sys.argv[1:2] == ["--export"]:
        export_all(sys.argv[2])
        return
    if sys.argv[1:2] == ["--time"]:
        time_reductions(sys.argv[2])
        return
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    shapec = os.path.abspath(sys.argv[1])
    out = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else "/tmp/shapec-small"
    os.makedirs(out, exist_ok=True)
    if "--reuse" not in sys.argv:
        subprocess.run(["bash", os.path.join(SRC, "scripts", "real-torch.sh"), "run", "bench/small_models.py", "--export",
                        out], cwd=SRC, check=True)
    for name in list(TINY) + list(REDUCTIONS):
        subprocess.run([shapec, "export", os.path.join(out, name + ".pt2"), "-o", os.path.join(out, name)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    checks = os.path.join(os.path.dirname(shapec), "bench_checks")
    print("| tiny model | input shapes | call (ns), shapec_model_run |\n|---|---|---|")
    for name, shapes in TINY.items():
        r = subprocess.run(["taskset", "-c", "1", checks, os.path.join(out, name, "model.so")] + shapes,
                           capture_output=True, text=True, check=True)
        ns = re.search(r"run_ns\s+median=([0-9.]+)", r.stdout + r.stderr).group(1)
        print(f"| {name} | {' '.join(shapes)} | {ns} |")
    print("\n| reduction | input | shapec (ms) | torch 1.13 eager (ms) | ratio | max error / max value |\n|---|---|---|---|---|---|")
    sys.stdout.flush()
    subprocess.run(["taskset", "-c", "1", "/usr/bin/python3", os.path.abspath(__file__), "--time", out], check=True)


if __name__ == "__main__":
    main()
