#!/usr/bin/python3
"""The weights a library embeds are the ones its code reads, written once.

A stack of Conv -> BatchNorm -> ReLU blocks and a Linear: each batch norm folds into its
convolution at export, so the library must hold the folded weights and biases and the
Linear's (upright, once, where it has code of its own), and neither the original convolution weights nor the batch norms' parameters and
statistics.  The blob's symbol (shapec_weights, in the library's symbol table) must have
exactly that size, the library must not be much larger than it, --emit-llvm's IR must not
carry the bytes (they go into an object of their own, not through LLVM), and every build
must match PyTorch at two batch sizes, --external-weights too (its side file keeps every
weight: nothing is folded there).  More weights than a library can embed (1.875 GiB) are
refused before the link with a message that names --external-weights.  Exit 77 without
PyTorch.

usage: test_weights_embedded.py SHAPEC SOURCE_DIR"""
import json
import os
import re
import subprocess
import sys
import tempfile

try:
    import torch
except ImportError:
    print("skipped: PyTorch is not installed")
    sys.exit(77)

shapec, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "tools"))
from shapec_tools.convert import convert  # noqa: E402
from shapec_tools.model_library import ModelLibrary  # noqa: E402

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def padded(nbytes):
    return (nbytes + 63) // 64 * 64


def matches_torch(lib_path, module, what):
    lib = ModelLibrary(lib_path)
    for batch in (1, 5):
        x = torch.randn(batch, 8, 20, 20, generator=torch.Generator().manual_seed(batch))
        call, outs = lib.prepare([x])
        call()
        with torch.no_grad():
            want = module(x)
        err = float((torch.from_numpy(outs[0]) - want).abs().max())
        check(err < 1e-4, f"{what}: matches PyTorch at batch {batch} (error {err:.1e})")


def symbol_size(so, name):
    out = subprocess.run(["llvm-readelf-19", "--symbols", "--wide", so], capture_output=True, text=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 8 and f[7] == name:
            return int(f[2], 0)
    return None


torch.manual_seed(0)
channels = [8, 48, 96, 96, 64]
layers = []
for cin, cout in zip(channels, channels[1:]):
    bn = torch.nn.BatchNorm2d(cout)
    with torch.no_grad():  # statistics that make the fold visible
        bn.running_mean.uniform_(-0.5, 0.5)
        bn.running_var.uniform_(0.5, 2.0)
        bn.weight.uniform_(0.5, 1.5)
        bn.bias.uniform_(-0.2, 0.2)
    layers += [torch.nn.Conv2d(cin, cout, 3, padding=1, bias=False), bn, torch.nn.ReLU()]
layers += [torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(channels[-1], 10)]
module = torch.nn.Sequential(*layers).eval()

convs = [m for m in module if isinstance(m, torch.nn.Conv2d)]
linear = module[-1]
want_blob = sum(padded(c.weight.numel() * 4) + padded(c.out_channels * 4) for c in convs)
# on CPUs with AVX2 and FMA a linear layer of at most 64 x 64 weights keeps them upright,
# [in, out rounded up to 8], then its bias (backends/llvm/cg_tiny_linear.c): one piece
out_padded = (linear.out_features + 7) // 8 * 8
tiny_linear = ({"avx2", "fma"} <= set(open("/proc/cpuinfo").read().split()) and linear.in_features <= 64 and
               linear.out_features <= 64)
want_blob += (padded((linear.in_features + 1) * out_padded * 4) if tiny_linear else
              padded(linear.weight.numel() * 4) + padded(linear.bias.numel() * 4))
all_weights = sum(padded(t.numel() * t.element_size()) for t in list(module.parameters()) + list(module.buffers()))

with tempfile.TemporaryDirectory() as tmp:
    path = convert(module, [torch.randn(2, 8, 20, 20)], tmp, input_names=["x"])
    spec = os.path.join(tmp, "spec.json")
    with open(spec, "w") as f:
        json.dump({"dynamic_shapes": {"x": ["_DimHint.AUTO", None, None, None]}}, f)

    out = os.path.join(tmp, "out")
    r = subprocess.run([shapec, "export", path, "--dynamic", spec, "-o", out, "-q", "-v"], capture_output=True, text=True)
    check(r.returncode == 0, f"export succeeds ({r.stderr.strip()[-300:]})")
    if r.returncode == 0:
        so = os.path.join(out, "model.so")
        got = symbol_size(so, "shapec_weights")
        check(got == want_blob, f"the blob holds the folded convolutions and the linear layer only: {got} bytes, "
                                f"want {want_blob} (all of the program's weights: {all_weights})")
        size = os.path.getsize(so)
        check(size < want_blob + 4 * 1024 * 1024, f"the library ({size} bytes) is the blob plus its code")
        matches_torch(so, module, "embedded")

    ir_out = os.path.join(tmp, "ir")
    r = subprocess.run([shapec, "export", path, "--dynamic", spec, "-o", ir_out, "-q", "--emit-llvm"],
                       capture_output=True, text=True)
    check(r.returncode == 0, f"export --emit-llvm succeeds ({r.stderr.strip()[-300:]})")
    if r.returncode == 0:
        ir_size = os.path.getsize(os.path.join(ir_out, "model.ll"))
        check(ir_size < want_blob, f"the IR ({ir_size} bytes) does not carry the weights ({want_blob} bytes)")
        with open(os.path.join(ir_out, "model.ll")) as f:
            ir = f.read()
        declared = re.search(r"^@shapec_weights = external hidden constant \[(\d+) x i8\]", ir, re.M)
        check(declared is not None and int(declared.group(1)) == want_blob and "stand_in" not in ir,
              "the IR reads the laid-out blob, declared with its final size")
        matches_torch(os.path.join(ir_out, "model.so"), module, "--emit-llvm")

    ext = os.path.join(tmp, "ext")
    r = subprocess.run([shapec, "export", path, "--dynamic", spec, "-o", ext, "-q", "--external-weights"],
                       capture_output=True, text=True)
    check(r.returncode == 0, f"export --external-weights succeeds ({r.stderr.strip()[-300:]})")
    if r.returncode == 0:
        side = os.path.getsize(os.path.join(ext, "model.weights"))
        check(side == 64 + all_weights, f"the side file holds every weight: {side} bytes, want {64 + all_weights}")
        check(symbol_size(os.path.join(ext, "model.so"), "shapec_weights") is None,
              "a library with external weights embeds none")
        matches_torch(os.path.join(ext, "model.so"), module, "--external-weights")

# More weights than a library can address (1.875 GiB): a clear error that names the way out,
# no library; with --external-weights the same program exports.
class Huge(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.p = torch.nn.Parameter(torch.zeros(510_000_000), requires_grad=False)  # 1.90 GiB

    def forward(self, x):
        return x + self.p[:4]


with tempfile.TemporaryDirectory() as tmp:
    path = convert(Huge().eval(), [torch.randn(4)], tmp, input_names=["x"])
    out = os.path.join(tmp, "out")
    r = subprocess.run([shapec, "export", path, "-o", out, "-q"], capture_output=True, text=True)
    check(r.returncode == 4 and "1.90 GiB" in r.stderr and "--external-weights" in r.stderr
          and not os.path.exists(os.path.join(out, "model.so")),
          f"1.90 GiB of weights: refused before the link, with the way out (exit {r.returncode}: {r.stderr.strip()[:300]})")
    r = subprocess.run([shapec, "export", path, "-o", out, "-q", "--external-weights"], capture_output=True, text=True)
    check(r.returncode == 0 and os.path.getsize(os.path.join(out, "model.weights")) >= 510_000_000 * 4,
          f"the same program exports with --external-weights ({r.stderr.strip()[-200:]})")

print(f"# {len(failures)} failed")
sys.exit(1 if failures else 0)
