#!/usr/bin/python3
"""A convolution's global average pool computed by the convolution (backends/llvm/cg_conv_pool.c):
conv -> (batch norm) -> activation -> adaptive_avg_pool2d(1), where the pool alone reads
the convolution's output.  Each case is exported with `export -v`, which must count the
pools absorbed (none where the activation is also a graph output, or where the pool is not
to 1x1), then run at a shape that the two-rows-per-register kernel takes (conv_pair_rows.c,
on an AVX-512 library: the means summed from its registers) and at shapes it does not
(wider rows, stride 2: the convolution into a block of its own, then the pool's kernel),
against PyTorch, on one thread and two (the same bits).  NaN inputs must give NaN means.

usage: test_conv_pool.py SHAPEC SOURCE_DIR      (Debian's /usr/bin/python3 with PyTorch)"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/, for tap
import tap  # noqa: E402

tap.require_torch()
import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

shapec, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "tools"))
from shapec_tools.convert import convert  # noqa: E402
from shapec_tools.model_library import ModelLibrary  # noqa: E402

checks = tap.Checks()
check = checks.check


torch.manual_seed(0)
A = "_DimHint.AUTO"


class BnReluGap(torch.nn.Module):
    """cnn_pool's shape: conv, batch norm, ReLU, the pool, flatten, a linear layer."""

    def __init__(self):
        super().__init__()
        self.c, self.n, self.f = torch.nn.Conv2d(3, 5, 3, padding=1), torch.nn.BatchNorm2d(5), torch.nn.Linear(5, 2)
        self.n.running_mean.normal_()
        self.n.running_var.uniform_(0.5, 1.5)

    def forward(self, x):
        return self.f(torch.flatten(F.adaptive_avg_pool2d(F.relu(self.n(self.c(x))), 1), 1))


class GroupedRelu6Gap(torch.nn.Module):
    """Grouped and dilated, ReLU6, the pool's [n, c, 1, 1] the program's output itself."""

    def __init__(self):
        super().__init__()
        self.c = torch.nn.Conv2d(4, 6, 3, padding=2, dilation=2, groups=2)

    def forward(self, x):
        return F.adaptive_avg_pool2d(F.relu6(self.c(x)), (1, 1))


class StridedGap(torch.nn.Module):
    """Stride 2: never the two-rows kernel."""

    def __init__(self):
        super().__init__()
        self.c = torch.nn.Conv2d(3, 4, 3, stride=2, padding=1)

    def forward(self, x):
        return F.adaptive_avg_pool2d(F.relu(self.c(x)), 1).flatten(1)


class FeaturesAndGap(torch.nn.Module):
    """The ReLU's output is an output too: the convolution must write its planes."""

    def __init__(self):
        super().__init__()
        self.c = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        h = F.relu(self.c(x))
        return h, F.adaptive_avg_pool2d(h, 1)


class PoolToTwo(torch.nn.Module):
    """A pool to 2x2 is no global average."""

    def __init__(self):
        super().__init__()
        self.c = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        return F.adaptive_avg_pool2d(F.relu(self.c(x)), 2)


# name: (module, example shape, shapes to run, pools absorbed)
CASES = {
    "bn_relu_gap": (BnReluGap, [2, 3, 6, 6], [[2, 3, 6, 6], [1, 3, 4, 5], [3, 3, 5, 7], [2, 3, 9, 9]], 1),
    "grouped_relu6_gap": (GroupedRelu6Gap, [2, 4, 4, 4], [[2, 4, 4, 4], [1, 4, 3, 2], [3, 4, 8, 11]], 1),
    "strided_gap": (StridedGap, [2, 3, 8, 8], [[2, 3, 8, 8], [1, 3, 5, 9]], 1),
    "features_and_gap": (FeaturesAndGap, [2, 3, 6, 6], [[2, 3, 6, 6], [1, 3, 5, 3]], 0),
    "pool_to_two": (PoolToTwo, [2, 3, 6, 6], [[2, 3, 6, 6], [1, 3, 7, 4]], 0),
}

with tempfile.TemporaryDirectory() as tmp:
    for name, (make, example, shapes, pools) in CASES.items():
        module = make().eval()
        d = os.path.join(tmp, name)
        path = convert(module, [torch.randn(*example)], d, input_names=["x"])
        with open(os.path.join(d, "spec.json"), "w") as fp:
            json.dump({"dynamic_shapes": {"x": [A, None, A, A]}}, fp)
        r = subprocess.run([shapec, "export", path, "--dynamic", os.path.join(d, "spec.json"), "-o", os.path.join(d, "out"),
                            "-v"], capture_output=True, text=True)
        check(r.returncode == 0, f"{name}: exports ({r.stderr.strip()[-300:]})")
        if r.returncode:
            continue
        m = re.search(r"convolutions absorbed \d+ residual adds and (\d+) global average pools", r.stderr)
        check(m is not None and int(m.group(1)) == pools,
              f"{name}: the convolution absorbs {pools} global average pool(s) ({m.group(0) if m else 'no report'})")
        lib = ModelLibrary(os.path.join(d, "out", "model.so"))
        for shape in shapes:
            g = torch.Generator().manual_seed(sum(shape))
            x = torch.randn(*shape, generator=g) * 2
            if shape == shapes[-1]:
                x.view(-1)[3] = float("nan")  # a NaN reaches the means of the planes it touches
            with torch.no_grad():
                want = module(x)
            want = [w.numpy() for w in (want if isinstance(want, tuple) else (want,))]
            got = {}
            for threads in (1, 2):
                lib.set_num_threads(threads)
                run, outs = lib.prepare([x.numpy()])
                run()
                got[threads] = [o.copy() for o in outs]
            worst = 0.0
            for o, w in zip(got[1], want):
                same_nan = np.array_equal(np.isnan(o), np.isnan(w))
                fin = ~np.isnan(w)
                err = float(np.abs(o[fin] - w[fin]).max() / max(1.0, float(np.abs(w[fin]).max()))) if fin.any() else 0.0
                worst = max(worst, err if same_nan and o.shape == w.shape else float("inf"))
            check(worst < 1e-5, f"{name} at {shape}: matches PyTorch (error {worst:.1e})")
            check(all(np.array_equal(a, b, equal_nan=True) for a, b in zip(got[1], got[2])),
                  f"{name} at {shape}: one thread and two give the same bits")

sys.exit(checks.finish())
