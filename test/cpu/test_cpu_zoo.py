#!/usr/bin/python3
"""CPU backend numerics: every zoo model is exported with dynamic dims, compiled to
model.so, run through `shapec run` at several shapes inside its ranges (the low end
included), and compared with the reference evaluator (PyTorch's own ATen operators).
Wrong-shaped inputs must be rejected with a precise message.  Exit 77 without PyTorch.

SHAPEC_TEST_TARGET=cpu,cuda (or cuda) exports with CUDA code as well: its PTX must
assemble with ptxas for sm_80 and sm_90, the library must fail cleanly without a GPU
(SHAPEC_NO_GPU_PROBE names the probe), and where a GPU exists the outputs computed there
are compared too.

usage: test_cpu_zoo.py SHAPEC SOURCE_DIR [MODEL ...]"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/, for tap
import tap  # noqa: E402

tap.require_torch(" (apt-get install python3-torch python3-torchvision)")
import numpy as np  # noqa: E402
import torch  # noqa: E402

shapec, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "tools"))
from shapec_tools import zoo  # noqa: E402
from shapec_tools.convert import convert  # noqa: E402
from shapec_tools.evaluate import evaluate  # noqa: E402

sys.path.insert(0, os.path.join(src, "test", "cuda"))
import cuda_checks  # noqa: E402
import bundle  # noqa: E402

AUTO = "_DimHint.AUTO"
# model -> (spec, shapes to run: name -> list of shapes, one per run)
CASES = {
    "tutorial": ({"w": [AUTO, AUTO], "x": [AUTO], "y": [AUTO, AUTO], "z": [AUTO]},
                 [{"w": [6, 5], "x": [4], "y": [8, 4], "z": [32]}, {"w": [2, 5], "x": [2], "y": [2, 2], "z": [4]},
                  {"w": [9, 5], "x": [7], "y": [3, 7], "z": [21]}]),
    # AUTO dims at 1 and 0 too: ep.module() accepts them (tracing's >= 2 is not checked)
    "mlp": ({"x": [AUTO, None]}, [{"x": [8, 784]}, {"x": [2, 784]}, {"x": [33, 784]}, {"x": [1, 784]}, {"x": [0, 784]}]),
    "encoder": ({"x": [AUTO, AUTO, None]}, [{"x": [2, 16, 256]}, {"x": [2, 2, 256]}, {"x": [3, 9, 256]}]),
    "resnet18": ({"x": [AUTO, None, AUTO, AUTO]}, [{"x": [2, 3, 64, 64]}, {"x": [2, 3, 32, 48]}, {"x": [3, 3, 57, 40]},
                                                   {"x": [1, 3, 33, 1]}]),
    "mobilenet_v2": ({"x": [AUTO, None, AUTO, AUTO]},
                     [{"x": [2, 3, 64, 64]}, {"x": [2, 3, 32, 32]}, {"x": [3, 3, 45, 70]}]),
    # named Dims: their declared ends are run, batch 1 and an empty batch included (torch
    # accepts sizes 0 and 1 for a Dim declared from there, though it reasons from 2)
    "mlp@dims": ({"x": ["batch", None], "__dims__": {"batch": {"min": 0, "max": 512}}},
                 [{"x": [1, 784]}, {"x": [0, 784]}, {"x": [512, 784]}]),
    "encoder@dims": ({"x": ["batch", "seq", None], "__dims__": {"batch": {"min": 1, "max": 16}, "seq": {"min": 1, "max": 64}}},
                     [{"x": [1, 1, 256]}, {"x": [16, 64, 256]}, {"x": [3, 17, 256]}]),
    # weights in a side file: the library maps OUTDIR/model.weights on its first run
    "mlp@external": ({"x": [AUTO, None], "__flags__": ["--external-weights"]}, [{"x": [8, 784]}, {"x": [3, 784]}]),
    "resnet18@dims": ({"x": ["batch", None, "h", "h"], "__dims__": {"batch": {"min": 1, "max": 8}, "h": {"min": 32, "max": 96}}},
                      [{"x": [1, 3, 32, 32]}, {"x": [2, 3, 96, 96]}, {"x": [3, 3, 45, 45]}]),
}
checks = tap.Checks()
check = checks.check


DEVICES = cuda_checks.devices()
print(f"# target {cuda_checks.TARGET}; computing on {', '.join(DEVICES) or 'nothing (no GPU here)'}")


def run(lib, inputs, outdir, device=None):
    args = [shapec, "run", lib, "--out", outdir, "--device", device or DEVICES[0]]
    for name, path in inputs.items():
        args += ["--input", f"{name}={path}"]
    return subprocess.run(args, capture_output=True, text=True)


def inputs_at(k, shape, names):
    """The inputs of run k: random, the same in every process."""
    torch.manual_seed(100 + k)
    return [torch.randn(*shape[n]) for n in names]


for name in sys.argv[3:] or list(CASES):
    model_name = name.split("@")[0]
    if model_name in ("resnet18", "mobilenet_v2"):
        try:
            import torchvision  # noqa: F401
        except ImportError:
            print(f"skip - {name}: torchvision is not installed")
            continue
    spec, shapes = CASES[name]
    spec = dict(spec)
    dims = spec.pop("__dims__", None)
    flags = spec.pop("__flags__", [])
    module, input_names, inputs, _ = zoo.build(model_name)
    with tempfile.TemporaryDirectory() as tmp:
        path = convert(module, inputs, tmp, input_names=input_names)
        with open(os.path.join(tmp, "spec.json"), "w") as f:
            json.dump({"dynamic_shapes": spec, **({"dims": dims} if dims else {})}, f)
        out = os.path.join(tmp, "out")
        r = subprocess.run([shapec, "export", path, "--dynamic", os.path.join(tmp, "spec.json"), "-o", out, "-q"] + flags
                           + cuda_checks.export_flags(), capture_output=True, text=True)
        lib = os.path.join(out, "model.so")
        check(r.returncode == 0 and os.path.exists(lib), f"{name}: compiles to model.so ({r.stderr.strip()[-400:]})")
        if r.returncode != 0:
            continue
        if cuda_checks.CUDA and not cuda_checks.EMULATE:
            for arch, ok, msg in cuda_checks.ptxas(out):
                check(ok, f"{name}: its sm_80 PTX assembles with ptxas -arch={arch} {msg}")
            # exported for sm_90 as well
            out90 = os.path.join(tmp, "out90")
            r90 = subprocess.run([shapec, "export", path, "--dynamic", os.path.join(tmp, "spec.json"), "-o", out90, "-q"]
                                 + flags + cuda_checks.export_flags("sm_90"), capture_output=True, text=True)
            check(r90.returncode == 0, f"{name}: compiles for sm_90 ({r90.stderr.strip()[-300:]})")
            for arch, ok, msg in cuda_checks.ptxas(out90, ("sm_90",)):
                check(ok, f"{name}: its sm_90 PTX assembles with ptxas -arch={arch} {msg}")
            probe = cuda_checks.no_gpu(lib, [shapes[0][n] for n in input_names])
            if probe:
                check(probe[0], f"{name}: without a GPU the library loads, checks its guards and says 'no CUDA device'"
                                + ("" if probe[0] else f"\n{probe[1]}"))
        if bundle.DIR:  # for a GPU elsewhere (test/cuda/bundle.py)
            runs = [(xs, evaluate(path, xs)) for xs in (inputs_at(k, shape, input_names) for k, shape in enumerate(shapes))]
            bundle.save("zoo", name, out, input_names, runs)
            if os.path.exists(os.path.join(tmp, "out90", "model.so")):  # the same model built for sm_90
                bundle.save("zoo", name + "@sm_90", os.path.join(tmp, "out90"), input_names, runs)
        if not DEVICES:
            print(f"skip - {name}: nothing to compute on (a CUDA-only library and no GPU)")
            continue
        for k, shape in enumerate(shapes):
            xs = inputs_at(k, shape, input_names)
            files = {}
            for n, x in zip(input_names, xs):
                files[n] = os.path.join(tmp, f"{n}_{k}.npy")
                np.save(files[n], x.numpy())
            want = evaluate(path, xs)
            for device in DEVICES:
                res = run(lib, files, os.path.join(tmp, f"res{k}_{device}"), device)
                if res.returncode != 0:
                    check(False, f"{name}: runs on {device} at {shape} ({res.stderr.strip()[:300]})")
                    continue
                outs = res.stdout.split()
                worst = 0.0
                for o, w in zip(outs, want):
                    got = torch.from_numpy(np.load(o))
                    if got.shape != w.shape:
                        worst = float("inf")
                        break
                    if w.numel() == 0:
                        continue
                    scale = max(1.0, float(w.abs().max()))
                    worst = max(worst, float((got - w).abs().max()) / scale)
                check(worst < 1e-4, f"{name}: matches PyTorch on {device} at {shape} (max error {worst:.1e} of the "
                                    "output's scale)")
        # wrong shapes: one more on a static dim (the first input that has one), else a rank
        bad = {}
        static = [(n, k) for n in input_names for k, d in enumerate(spec[n]) if d is None]
        for n, x in zip(input_names, inputs):
            bad[n] = os.path.join(tmp, f"{n}_bad.npy")
            a = x.numpy()
            if static and static[0][0] == n:
                k = static[0][1]
                a = np.concatenate([a, np.take(a, [0], axis=k)], axis=k)
            elif not static:
                a = a[None]
            np.save(bad[n], a)
        res = run(lib, bad, os.path.join(tmp, "bad"))
        check(res.returncode == 1 and any(w in res.stderr for w in ("needs", "outside", "less than", "more than")),
              f"{name}: a wrong-shaped input is rejected: {res.stderr.strip()[:200]}")

        if dims:  # one past the declared end of the first input's first Dim
            first = input_names[0]
            dim_name = spec[first][0]
            shape = list(shapes[0][first])
            shape[0] = dims[dim_name]["max"] + 1
            over = {n: os.path.join(tmp, f"{n}_over.npy") for n in input_names}
            for n in input_names:
                np.save(over[n], np.zeros(shape if n == first else shapes[0][n], np.float32))
            res = run(lib, over, os.path.join(tmp, "over"))
            want_msg = f"{first}.size()[0] = {shape[0]} is more than {dims[dim_name]['max']}, the most {dim_name} can be"
            check(res.returncode == 1 and want_msg in res.stderr, f"{name}: refused past its range: {res.stderr.strip()[-160:]}")

        if "--external-weights" in flags:
            weights = os.path.join(out, "model.weights")
            n_params = sum(p.numel() for p in module.parameters()) * 4
            check(os.path.exists(weights) and os.path.getsize(weights) >= n_params > os.path.getsize(lib),
                  f"{name}: the weights ({n_params} bytes) are in model.weights, not in model.so "
                  f"({os.path.getsize(lib)} bytes)")
            ins = {n: os.path.join(tmp, f"{n}_0.npy") for n in input_names}
            os.rename(weights, weights + ".away")
            res = run(lib, ins, os.path.join(tmp, "noweights"))
            check(res.returncode == 3 and f"cannot open the weights file {weights}" in res.stderr,
                  f"{name}: without model.weights the library says so: {res.stderr.strip()[-200:]}")
            with open(weights + ".away", "rb") as src_f, open(weights, "wb") as dst_f:
                data = bytearray(src_f.read())
                data[8] ^= 1  # another export's id
                dst_f.write(data)
            res = run(lib, ins, os.path.join(tmp, "otherweights"))
            check(res.returncode == 3 and "does not belong to this library" in res.stderr,
                  f"{name}: another export's weights file is refused: {res.stderr.strip()[-200:]}")

sys.exit(checks.finish())
