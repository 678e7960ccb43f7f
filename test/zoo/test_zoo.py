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

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/, for tap
import tap  # noqa: E402

tap.require_torch(" (apt-get install python3-torch python3-torchvision)")
import torch  # noqa: E402

shapec, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "tools"))
from shapec_tools import zoo  # noqa: E402
from shapec_tools.convert import convert  # noqa: E402
from shapec_tools.evaluate import evaluate  # noqa: E402

checks = tap.Checks()
check = checks.check


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

# the command-line tools, end to end
with tempfile.TemporaryDirectory() as tmp:
    env = dict(os.environ, PYTHONPATH=os.path.join(src, "tools"))
    r = subprocess.run([sys.executable, os.path.join(src, "tools", "torch2shapec"), "shapec_tools.zoo:TutorialModel",
                        "--input", "w=6,5", "--input", "x=4", "--input", "y=8,4", "--input", "z=32",
                        "-o", tmp, "--pt2"], capture_output=True, text=True, env=env)
    made = all(os.path.exists(os.path.join(tmp, f)) for f in ("model.json", "model.safetensors", "model.pt2"))
    check(r.returncode == 0 and made, f"torch2shapec CLI writes model.json, model.safetensors, model.pt2 ({r.stderr.strip()[:200]})")
    from shapec_tools import files  # noqa: E402
    torch.manual_seed(1)
    ins = {"w": torch.randn(3, 5), "x": torch.randn(7), "y": torch.randn(2, 7), "z": torch.randn(14)}
    args = []
    for k, v in ins.items():
        files.save_npy(os.path.join(tmp, k + ".npy"), v)
        args += ["--input", f"{k}={os.path.join(tmp, k + '.npy')}"]
    r = subprocess.run([sys.executable, os.path.join(src, "tools", "aten_eval"), os.path.join(tmp, "model.pt2"), *args,
                        "--out", os.path.join(tmp, "out")], capture_output=True, text=True, env=env)
    ok = r.returncode == 0
    if ok:  # other shapes than the sample: the program is shape-generic
        w = files.read_safetensors(os.path.join(tmp, "model.safetensors"))
        want0 = ins["w"] @ w["l.weight"].T + w["l.bias"]
        want1 = (ins["x"] + ins["y"]).flatten() + ins["z"]
        got0 = files.load_npy(os.path.join(tmp, "out", "output_0.npy"))
        got1 = files.load_npy(os.path.join(tmp, "out", "output_1.npy"))
        ok = torch.allclose(got0, want0, atol=1e-6) and torch.equal(got1, want1)
    check(ok, f"aten_eval CLI runs the .pt2 at new shapes and matches eager PyTorch ({r.stderr.strip()[:200]})")
    r = subprocess.run([sys.executable, os.path.join(src, "tools", "torch2shapec"), "no_such_module:f", "-o", tmp],
                       capture_output=True, text=True, env=env)
    check(r.returncode == 2 and "cannot load" in r.stderr, "torch2shapec: a missing factory is a clear error")

sys.exit(checks.finish())
