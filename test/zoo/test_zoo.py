#!/usr/bin/python3
"""Zoo tests: every model converts (JSON + safetensors + .pt2), loads in `shapec export`
in both forms with the same result, and the reference evaluator reproduces the module's
outputs from the converted program.  Exit 77 (skipped) without PyTorch.

usage: test_zoo.py SHAPEC SOURCE_DIR [MODEL ...]"""
import json
import os
import subprocess
import sys
import tempfile

try:
    import torch
except ImportError:
    print("skipped: PyTorch is not installed (apt-get install python3-torch python3-torchvision)")
    sys.exit(77)

shapec, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "tools"))
from shapec_tools import zoo  # noqa: E402
from shapec_tools.convert import convert  # noqa: E402
from shapec_tools.evaluate import evaluate  # noqa: E402

failures = []


def check(ok, what):
    print(("ok - " if ok else "not ok - ") + what, flush=True)
    if not ok:
        failures.append(what)


def export(model, spec, out):
    r = subprocess.run([shapec, "export", model, "--dynamic", spec, "--no-codegen", "-q", "-o", out],
                       capture_output=True, text=True)
    report = None
    path = os.path.join(out, "constraints.json")
    if os.path.exists(path):
        with open(path) as f:
            report = json.load(f)
    return r.returncode, r.stderr, report


def contract(report):
    """The parts of a report that must not depend on the container format."""
    keep = ("inputs", "outputs", "range_constraints", "replacements", "specializations", "runtime_asserts")
    return {k: report.get(k) for k in keep}


names = sys.argv[3:] or list(zoo.ZOO)
for name in names:
    if name in ("resnet18", "mobilenet_v2"):
        try:
            import torchvision  # noqa: F401
        except ImportError:
            print(f"skip - {name}: torchvision is not installed")
            continue
    module, input_names, inputs, spec = zoo.build(name)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            path = convert(module, inputs, tmp, input_names=input_names, pt2=True)
        except Exception as e:  # noqa: BLE001
            check(False, f"{name}: converts ({type(e).__name__}: {e})")
            continue
        check(True, f"{name}: converts to model.json, model.safetensors and model.pt2")
        with torch.no_grad():
            want = module(*inputs)
        want = list(want) if isinstance(want, (tuple, list)) else [want]
        for form, model in (("json", path), ("pt2", os.path.join(tmp, "model.pt2"))):
            got = evaluate(model, inputs)
            worst = max(float((g - w).abs().max()) for g, w in zip(got, want))
            same = len(got) == len(want) and all(g.shape == w.shape and g.dtype == w.dtype for g, w in zip(got, want))
            check(same and worst <= 1e-5, f"{name}: the reference evaluator replays the {form} form (max |diff| {worst:.2e})")
        spec_path = os.path.join(tmp, "spec.json")
        with open(spec_path, "w") as f:
            json.dump(spec, f)
        rc_j, err_j, rep_j = export(path, spec_path, os.path.join(tmp, "out_json"))
        check(rc_j == 0 and rep_j and rep_j["status"] == "ok", f"{name}: shapec export reads model.json ({err_j.strip()[:300]})")
        rc_p, err_p, rep_p = export(os.path.join(tmp, "model.pt2"), spec_path, os.path.join(tmp, "out_pt2"))
        check(rc_p == 0 and rep_p and rep_p["status"] == "ok", f"{name}: shapec export reads model.pt2 ({err_p.strip()[:300]})")
        if rep_j and rep_p:
            check(contract(rep_j) == contract(rep_p), f"{name}: the .json and .pt2 forms give the same contract")
        if rep_j and name != "tutorial":
            first = rep_j["inputs"][[i["kind"] for i in rep_j["inputs"]].index("user_input")]["shape"][0]
            check(isinstance(first, str), f"{name}: the batch dim stays dynamic ({first})")
        if rep_j and name == "tutorial":
            shapes = {i["name"]: i["shape"] for i in rep_j["inputs"] if i["kind"] == "user_input"}
            check(shapes == {"w": ["s0", 5], "x": ["s2"], "y": ["s3", "s2"], "z": ["s2*s3"]},
                  f"tutorial: w [s0, 5], x [s2], y [s3, s2], z [s2*s3] ({shapes})")

print(f"# {len(failures)} failed")
sys.exit(1 if failures else 0)
