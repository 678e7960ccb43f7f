#!/usr/bin/python3
"""CPU backend numerics: every zoo model is exported with dynamic dims, compiled to
model.so, run through `shapec run` at several shapes inside its ranges (the low end
included), and compared with the reference evaluator (PyTorch's own ATen operators).
Wrong-shaped inputs must be rejected with a precise message.  Exit 77 without PyTorch.

usage: test_cpu_zoo.py SHAPEC SOURCE_DIR [MODEL ...]"""
import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import torch
except ImportError:
    print("skipped: PyTorch is not installed (apt-get install python3-torch python3-torchvision)")
    sys.exit(77)

shapec, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "tools"))
from shapec_tools import zoo  # noqa: E402
from shapec_tools.convert import convert  # noqa: E402
from shapec_tools.evaluate import evaluate  # noqa: E402

AUTO = "_DimHint.AUTO"
# model -> (spec, shapes to run: name -> list of shapes, one per run)
CASES = {
    "tutorial": ({"w": [AUTO, AUTO], "x": [AUTO], "y": [AUTO, AUTO], "z": [AUTO]},
                 [{"w": [6, 5], "x": [4], "y": [8, 4], "z": [32]}, {"w": [2, 5], "x": [2], "y": [2, 2], "z": [4]},
                  {"w": [9, 5], "x": [7], "y": [3, 7], "z": [21]}]),
    "mlp": ({"x": [AUTO, None]}, [{"x": [8, 784]}, {"x": [2, 784]}, {"x": [33, 784]}]),
    "encoder": ({"x": [AUTO, AUTO, None]}, [{"x": [2, 16, 256]}, {"x": [2, 2, 256]}, {"x": [3, 9, 256]}]),
    "resnet18": ({"x": [AUTO, None, AUTO, AUTO]}, [{"x": [2, 3, 64, 64]}, {"x": [2, 3, 32, 48]}, {"x": [3, 3, 57, 40]}]),
    "mobilenet_v2": ({"x": [AUTO, None, AUTO, AUTO]},
                     [{"x": [2, 3, 64, 64]}, {"x": [2, 3, 32, 32]}, {"x": [3, 3, 45, 70]}]),
}
failures = []


def check(ok, what):
    print(("ok - " if ok else "not ok - ") + what, flush=True)
    if not ok:
        failures.append(what)


def run(lib, inputs, outdir):
    args = [shapec, "run", lib, "--out", outdir]
    for name, path in inputs.items():
        args += ["--input", f"{name}={path}"]
    return subprocess.run(args, capture_output=True, text=True)


for name in sys.argv[3:] or list(CASES):
    if name in ("resnet18", "mobilenet_v2"):
        try:
            import torchvision  # noqa: F401
        except ImportError:
            print(f"skip - {name}: torchvision is not installed")
            continue
    spec, shapes = CASES[name]
    module, input_names, inputs, _ = zoo.build(name)
    with tempfile.TemporaryDirectory() as tmp:
        path = convert(module, inputs, tmp, input_names=input_names)
        with open(os.path.join(tmp, "spec.json"), "w") as f:
            json.dump({"dynamic_shapes": spec}, f)
        out = os.path.join(tmp, "out")
        r = subprocess.run([shapec, "export", path, "--dynamic", os.path.join(tmp, "spec.json"), "-o", out, "-q"],
                           capture_output=True, text=True)
        lib = os.path.join(out, "model.so")
        check(r.returncode == 0 and os.path.exists(lib), f"{name}: compiles to model.so ({r.stderr.strip()[-400:]})")
        if r.returncode != 0:
            continue
        for k, shape in enumerate(shapes):
            torch.manual_seed(100 + k)
            xs = [torch.randn(*shape[n]) for n in input_names]
            files = {}
            for n, x in zip(input_names, xs):
                files[n] = os.path.join(tmp, f"{n}_{k}.npy")
                np.save(files[n], x.numpy())
            res = run(lib, files, os.path.join(tmp, f"res{k}"))
            if res.returncode != 0:
                check(False, f"{name}: runs at {shape} ({res.stderr.strip()[:300]})")
                continue
            want = evaluate(path, xs)
            outs = res.stdout.split()
            worst = 0.0
            for o, w in zip(outs, want):
                got = torch.from_numpy(np.load(o))
                if got.shape != w.shape:
                    worst = float("inf")
                    break
                scale = max(1.0, float(w.abs().max()))
                worst = max(worst, float((got - w).abs().max()) / scale)
            check(worst < 1e-4, f"{name}: matches PyTorch at {shape} (max error {worst:.1e} of the output's scale)")
        # wrong shapes: a rank, and a static dim
        bad = {}
        for n, x in zip(input_names, inputs):
            bad[n] = os.path.join(tmp, f"{n}_bad.npy")
            np.save(bad[n], x.numpy()[..., :1] if x.dim() > 1 else x.numpy()[None])
        res = run(lib, bad, os.path.join(tmp, "bad"))
        check(res.returncode == 1 and ("needs" in res.stderr or "outside" in res.stderr),
              f"{name}: a wrong-shaped input is rejected: {res.stderr.strip()[:200]}")

print(f"# {len(failures)} failed")
sys.exit(1 if failures else 0)
