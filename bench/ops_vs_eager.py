#!/usr/bin/python3
"""ops_vs_eager.py - single operations compiled by shapec beside PyTorch 1.13 eager, one thread.

Each operation is exported by torch 2.14 (in the chroot) with a dynamic first dim on inputs
of 1-16 MB, compiled by shapec, and timed with `shapec run --bench 30` (the median; the
guard checks included) against torch 1.13 eager on the same arrays (median of 30 calls),
both pinned to CPU 1.  Times only: the outputs are checked against ATen by the tests
(test/cpu/test_cpu_ops.py), not here.  A guard for the runtime's kernels: every row is
expected near 1x or under; a kernel that walks elements one by one shows as 10-1000x.

usage: bench/ops_vs_eager.py SHAPEC [--out DIR] [--reuse] [--only=a,b]   (Debian's /usr/bin/python3;
        needs scripts/real-torch.sh --torch 2.14 setup)"""
import os
import re
import subprocess
import sys

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name: (expression over x, y, ... or a module name, input shapes; "i:HI:shape" draws int64 in [0, HI),
#        "b:shape" a bool mask)
OPS = {
    "sum_last": ("x.sum(-1)", [(256, 4096)]),
    "mean_mid": ("x.mean(1)", [(64, 512, 64)]),
    "mean_scattered": ("x.mean((0, 2))", [(64, 512, 64)]),
    "amax_last": ("x.amax(-1)", [(256, 4096)]),
    "var_last": ("x.var(-1)", [(256, 4096)]),
    "argmax_mid": ("x.argmax(1)", [(64, 512, 64)]),
    "softmax_last": ("torch.softmax(x, -1)", [(256, 4096)]),
    "softmax_mid": ("torch.softmax(x, 1)", [(64, 512, 64)]),
    "log_softmax": ("torch.log_softmax(x, -1)", [(256, 4096)]),
    "layer_norm": ("layer_norm", [(64, 128, 768)]),
    "batch_norm": ("batch_norm", [(8, 64, 56, 56)]),
    "transpose": ("x.transpose(1, 2).contiguous()", [(64, 512, 64)]),
    "permute_0213": ("x.permute(0, 2, 1, 3).contiguous() * 1.0", [(8, 128, 8, 64)]),
    "cat_dim1": ("torch.cat([x, y], 1)", [(64, 512, 64), (64, 256, 64)]),
    "slice_step": ("x[:, ::2, :] + 1", [(64, 512, 64)]),
    "repeat": ("x.repeat(1, 4, 1)", [(64, 128, 64)]),
    "expand_mul": ("x * y.expand(-1, 512, -1)", [(64, 512, 64), (64, 1, 64)]),
    "bcast_add_col": ("x + y", [(256, 4096), (256, 1)]),
    "where_mask": ("torch.where(x > 0, x, x * 0.1)", [(256, 4096)]),
    "masked_fill": ("x.masked_fill(y, float('-inf'))", [(64, 128, 128), "b:(64, 128, 128)"]),
    "gather_last": ("torch.gather(x, 1, y)", [(256, 4096), "i:4096:(256, 512)"]),
    "embedding": ("F.embedding(x, y)", ["i:30000:(64, 128)", (30000, 256)]),
    "bmm": ("torch.bmm(x, y)", [(64, 128, 64), (64, 64, 128)]),
    "matmul_4d": ("x @ y", [(8, 8, 128, 64), (8, 8, 64, 128)]),
    "max_pool": ("F.max_pool2d(x, 3, 2, 1)", [(8, 64, 112, 112)]),
    "avg_pool": ("F.avg_pool2d(x, 2)", [(8, 64, 112, 112)]),
    "adaptive_avg": ("F.adaptive_avg_pool2d(x, 1)", [(8, 512, 14, 14)]),
    "glu_chunk": ("x.chunk(2, -1)[0] * torch.sigmoid(x.chunk(2, -1)[1])", [(256, 4096)]),
    "einsum_scores": ("torch.einsum('bhqd,bhkd->bhqk', x, y)", [(8, 8, 128, 64), (8, 8, 128, 64)]),
    "index_select": ("x.index_select(0, y)", [(4096, 256), "i:4096:(2048,)"]),
    "clamp_pow": ("x.clamp(-1, 1).pow(3)", [(256, 4096)]),
    "baddbmm": ("torch.baddbmm(z, x, y)", [(64, 128, 64), (64, 64, 128), (64, 128, 128)]),
    "stack": ("torch.stack([x, y], 1)", [(256, 4096), (256, 4096)]),
    "flip": ("x.flip(1)", [(256, 4096)]),
    "normalize": ("F.normalize(x, dim=-1)", [(256, 4096)]),
    "silu_mul": ("F.silu(x) * y", [(256, 4096), (256, 4096)]),
    "log_softmax_mid": ("torch.log_softmax(x, 1)", [(64, 512, 64)]),
    "abs_max": ("x.abs().amax()", [(256, 4096)]),
    "linear_3d": ("F.linear(x, y)", [(64, 128, 256), (512, 256)]),
    "conv1d": ("F.conv1d(x, y, padding=1)", [(16, 64, 1024), (64, 64, 3)]),
    "avg_pool1d": ("F.avg_pool1d(x, 4)", [(16, 64, 4096)]),
    "max_pool1d": ("F.max_pool1d(x, 3, 2, 1)", [(16, 64, 4096)]),
    "gelu_tanh": ("F.gelu(x, approximate='tanh')", [(256, 4096)]),
    "hardswish": ("F.hardswish(x)", [(256, 4096)]),
    "min_dim": ("x.min(1)[0]", [(64, 512, 64)]),
}
# inputs whose first dim is not the shared dynamic batch (their own size stays static)
STATIC_INPUTS = {"embedding": [1], "index_select": [1], "linear_3d": [1], "conv1d": [1]}
NAMES = "xyzw"


def draw(desc, rng, np):
    if isinstance(desc, tuple):
        return rng.standard_normal(desc, dtype=np.float32)
    kind, rest = desc.split(":", 1)
    if kind == "b":
        return rng.random(eval(rest)) > 0.5
    hi, shape = rest.split(":", 1)
    return rng.integers(0, int(hi), eval(shape)).astype(np.int64)


def module(name, torch):
    torch.manual_seed(0)
    if name == "layer_norm":
        m = torch.nn.LayerNorm(768)
        torch.nn.init.normal_(m.weight), torch.nn.init.normal_(m.bias)
    else:
        m = torch.nn.BatchNorm2d(64)
        m.running_mean.normal_(), m.running_var.uniform_(0.5, 2), torch.nn.init.normal_(m.weight)
    return m.eval()


def function(name, torch):
    import torch.nn.functional as F
    expr, shapes = OPS[name]
    if expr in ("layer_norm", "batch_norm"):
        return module(expr, torch)
    return eval(f"lambda {', '.join(NAMES[:len(shapes)])}: {expr}", {"torch": torch, "F": F})


def export_all(out, names):
    """In the torch 2.14 chroot: OUT/NAME.pt2 and the inputs OUT/NAME_in{k}.npy."""
    import numpy as np
    import torch
    from torch.export import Dim, export, save

    class Wrap(torch.nn.Module):
        def __init__(self, fn):
            super().__init__()
            self.fn = fn

        def forward(self, *xs):
            return self.fn(*xs)

    batch = Dim("batch", min=2, max=65536)
    for name in names:
        rng = np.random.default_rng(0)
        arrays = [draw(d, rng, np) for d in OPS[name][1]]
        fn = function(name, torch)
        m = fn if isinstance(fn, torch.nn.Module) else Wrap(fn)
        dyn = tuple(None if k in STATIC_INPUTS.get(name, []) else {0: batch} for k in range(len(arrays)))
        ds = dyn if isinstance(fn, torch.nn.Module) else (dyn,)
        save(export(m, tuple(torch.from_numpy(a) for a in arrays), dynamic_shapes=ds), os.path.join(out, name + ".pt2"))
        for k, a in enumerate(arrays):
            np.save(os.path.join(out, f"{name}_in{k}.npy"), a)


def time_all(shapec, out, names):
    """Pinned: one table row per operation."""
    import json
    import time

    import numpy as np
    import torch
    torch.set_num_threads(1)
    for name in names:
        lib = os.path.join(out, name)
        r = subprocess.run([shapec, "export", os.path.join(out, name + ".pt2"), "-o", lib], capture_output=True, text=True)
        if r.returncode:
            why = re.search(r"unknown operator '([^']+)'", r.stderr)
            print(f"| `{OPS[name][0]}` | | not compiled: {why.group(1) if why else r.stderr.strip()[:80]} | | |", flush=True)
            continue
        arrays = [np.load(os.path.join(out, f"{name}_in{k}.npy")) for k in range(len(OPS[name][1]))]
        described = json.loads(subprocess.run([shapec, "inspect", os.path.join(lib, "model.so"), "--json"],
                                              capture_output=True, text=True, check=True).stdout)
        inputs = [i["name"] for i in described["inputs"] if i["kind"] == "user_input"]
        args = [shapec, "run", os.path.join(lib, "model.so"), "--out", lib, "--bench", "30"]
        for n, k in zip(inputs, range(len(arrays))):
            args += ["--input", f"{n}={os.path.join(out, f'{name}_in{k}.npy')}"]
        r = subprocess.run(args, capture_output=True, text=True, env=dict(os.environ, SHAPEC_NUM_THREADS="1"))
        ms = float(re.search(r"median ([0-9.]+) us", r.stdout + r.stderr).group(1)) / 1e3
        fn = function(name, torch)
        tensors = [torch.from_numpy(a) for a in arrays]
        with torch.no_grad():
            for _ in range(3):
                fn(*tensors)
            ts = []
            for _ in range(30):
                t = time.perf_counter()
                fn(*tensors)
                ts.append(time.perf_counter() - t)
        eager = sorted(ts)[15] * 1e3
        shapes = " ".join("x".join(map(str, a.shape)) for a in arrays)
        print(f"| `{OPS[name][0]}` | {shapes} | {ms:.3f} | {eager:.3f} | {ms / eager:.2f} |", flush=True)


def main():
    only = next((a.split("=", 1)[1].split(",") for a in sys.argv if a.startswith("--only=")), None)
    names = [n for n in OPS if not only or n in only]
    if sys.argv[1:2] == ["--export"]:
        os.makedirs(sys.argv[2], exist_ok=True)
        export_all(sys.argv[2], names)
        return
    if sys.argv[1:2] == ["--time"]:
        time_all(sys.argv[2], sys.argv[3], names)
        return
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    shapec = os.path.abspath(sys.argv[1])
    out = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else "/tmp/shapec-ops"
    os.makedirs(out, exist_ok=True)
    extra = [a for a in sys.argv if a.startswith("--only=")]
    if "--reuse" not in sys.argv:
        subprocess.run(["bash", os.path.join(SRC, "scripts", "real-torch.sh"), "run", "bench/ops_vs_eager.py", "--export", out]
                       + extra, cwd=SRC, check=True)
    print("| operation | inputs | shapec (ms) | torch 1.13 eager (ms) | ratio |\n|---|---|---|---|---|", flush=True)
    subprocess.run(["taskset", "-c", "1", "/usr/bin/python3", os.path.abspath(__file__), "--time", shapec, out] + extra,
                   check=True)


if __name__ == "__main__":
    main()
