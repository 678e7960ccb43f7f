#!/usr/bin/python3
"""Batch norms folded into convolutions on the CUDA path (backends/llvm/cg_fold.c): a
library with device code computes no batch norm of its own, its weights blob holds the
folded tensors but not the weights that only folded nodes read, and both paths of a
cpu,cuda library (the CUDA one run by the host emulation) agree with PyTorch.  One
convolution's weight is shared by two convolutions, so it must stay in the blob.
Exit 77 without PyTorch.

usage: test_device_folding.py SHAPEC SOURCE_DIR"""
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

shapec, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "tools"))
from shapec_tools.convert import convert  # noqa: E402

checks = tap.Checks()
check = checks.check


class SharedConvBlock(torch.nn.Module):
    """bn1(conv(x)) + bn2(conv(relu(x))), then bn3(conv3(.)): three foldable pairs, the
    first two through one convolution weight."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.conv3 = torch.nn.Conv2d(8, 4, 3, bias=True)
        self.bn1, self.bn2, self.bn3 = torch.nn.BatchNorm2d(8), torch.nn.BatchNorm2d(8), torch.nn.BatchNorm2d(4)
        for bn in (self.bn1, self.bn2, self.bn3):
            bn.running_mean.uniform_(-1, 1)
            bn.running_var.uniform_(0.5, 2)
            bn.weight.data.uniform_(0.5, 1.5)
            bn.bias.data.uniform_(-1, 1)

    def forward(self, x):
        y = self.bn1(self.conv(x)) + self.bn2(self.conv(torch.relu(x)))
        return self.bn3(self.conv3(y))


def aligned(n):
    return (n + 63) // 64 * 64


torch.manual_seed(7)
module = SharedConvBlock().eval()
x = torch.randn(2, 3, 10, 12)
with torch.no_grad():
    want = module(x).numpy()

with tempfile.TemporaryDirectory() as tmp:
    path = convert(module, [x], tmp, input_names=["x"])
    spec = os.path.join(tmp, "spec.json")
    with open(spec, "w") as f:
        json.dump({"dynamic_shapes": {"x": ["_DimHint.AUTO", None, "_DimHint.AUTO", "_DimHint.AUTO"]}}, f)
    np.save(os.path.join(tmp, "x.npy"), x.numpy())
    out = os.path.join(tmp, "out")
    r = subprocess.run([shapec, "export", path, "--dynamic", spec, "-o", out, "-q", "--target", "cpu,cuda",
                        "--cuda-emulate", "--emit-llvm"], capture_output=True, text=True)
    check(r.returncode == 0, f"exports with --target cpu,cuda --cuda-emulate ({r.stderr.strip()[-300:]})")
    if r.returncode == 0:
        with open(os.path.join(out, "model.ll")) as f:
            ir = f.read()
        calls = re.findall(r"call \w+ @(sc_\w*batch_norm\w*)", ir)
        check(not calls, f"no batch norm is computed on either path (calls: {sorted(set(calls))})")
        blob = re.search(r"@shapec_weights = [^\n]*\[(\d+) x i8\]", ir)
        # kept: the shared convolution's weight (read by two nodes); folded: each pair's
        # scaled weight and bias; left out: the three batch norms' four tensors each
        want_bytes = aligned(8 * 3 * 3 * 3 * 4) + 2 * (aligned(8 * 3 * 3 * 3 * 4) + aligned(8 * 4)) \
            + aligned(4 * 8 * 3 * 3 * 4) + aligned(4 * 4)
        check(blob is not None and int(blob.group(1)) == want_bytes,
              f"the weights blob holds the shared weight and the folded tensors only: "
              f"{blob.group(1) if blob else 'no blob'} bytes, want {want_bytes}")
        for device in ("cpu", "cuda"):
            res = os.path.join(tmp, "res_" + device)
            r = subprocess.run([shapec, "run", os.path.join(out, "model.so"), "--input", f"x={tmp}/x.npy", "--out", res,
                                "--device", device], capture_output=True, text=True)
            got = np.load(os.path.join(res, "output_0.npy")) if r.returncode == 0 else None
            err = float(np.abs(got - want).max()) if got is not None and got.shape == want.shape else float("inf")
            check(err < 1e-5, f"the {device} path matches PyTorch (largest difference {err:.1e}; {r.stderr.strip()[-200:]})")

sys.exit(checks.finish())
