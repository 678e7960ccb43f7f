#!/usr/bin/python3
"""A deep graph compiles each distinct loop once: 600 blocks of Linear -> ReLU ->
Linear -> Tanh (3,000 graph nodes) give one outlined loop per activation kind, not one per
layer, a single copy of every constant string, and an entry function compiled apart (at
level none, `export -v` says "entry functions apart").  The library must still match
PyTorch at two batch sizes, also with --emit-llvm (which keeps the IR's value names).
Exit 77 without PyTorch.

usage: test_large_graph.py SHAPEC SOURCE_DIR"""
import collections
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

BLOCKS = 600
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def matches_torch(lib_path, module, what):
    lib = ModelLibrary(lib_path)
    for batch in (3, 7):
        x = torch.randn(batch, 16, generator=torch.Generator().manual_seed(batch))
        call, outs = lib.prepare([x])
        call()
        with torch.no_grad():
            want = module(x)
        err = float((torch.from_numpy(outs[0]) - want).abs().max())
        check(err < 1e-5, f"{what}: matches PyTorch at batch {batch} (error {err:.1e})")


torch.manual_seed(0)
layers = []
for _ in range(BLOCKS):
    layers += [torch.nn.Linear(16, 16), torch.nn.ReLU(), torch.nn.Linear(16, 16), torch.nn.Tanh()]
module = torch.nn.Sequential(*layers).eval()
with tempfile.TemporaryDirectory() as tmp:
    path = convert(module, [torch.randn(4, 16)], tmp, input_names=["x"])
    spec = os.path.join(tmp, "spec.json")
    with open(spec, "w") as f:
        json.dump({"dynamic_shapes": {"x": ["_DimHint.AUTO", None]}}, f)

    out = os.path.join(tmp, "out")
    r = subprocess.run([shapec, "export", path, "--dynamic", spec, "-o", out, "-q", "-v"], capture_output=True, text=True)
    check(r.returncode == 0, f"export of {BLOCKS * 4} layers succeeds ({r.stderr.strip()[-300:]})")
    check(re.search(r"^shapec: \[ *[0-9.]+ s\] entry functions apart: ", r.stderr, re.M) is not None,
          "export -v: the giant entry function is compiled apart from the loops")
    if r.returncode == 0:
        matches_torch(os.path.join(out, "model.so"), module, "without value names")

    ir_out = os.path.join(tmp, "ir")
    r = subprocess.run([shapec, "export", path, "--dynamic", spec, "-o", ir_out, "-q", "--emit-llvm"],
                       capture_output=True, text=True)
    check(r.returncode == 0, f"export --emit-llvm succeeds ({r.stderr.strip()[-300:]})")
    if r.returncode == 0:
        with open(os.path.join(ir_out, "model.ll")) as f:
            ir = f.read()
        loops = re.findall(r"^define [^@\n]*@(sc_loop_\d+)\(", ir, re.M)
        check(1 <= len(loops) <= 4, f"one outlined loop per distinct body: {len(loops)} for {2 * BLOCKS} activations")
        strings = collections.Counter(re.findall(r'^@[\w.]+ = [^"\n]*constant \[\d+ x i8\] (c".*")', ir, re.M))
        repeated = {text[:60]: n for text, n in strings.items() if n > 1}
        check(not repeated and strings, f"each constant string once ({len(strings)} strings; repeated: {repeated})")
        matches_torch(os.path.join(ir_out, "model.so"), module, "with value names")

print(f"# {len(failures)} failed")
sys.exit(1 if failures else 0)
