#!/usr/bin/python3
"""Export time of each zoo model for --target cpu, cuda and cpu,cuda, and the size of its
model.ptx with the time ptxas takes on it (sm_90).  Times one export each: run it on a
quiet machine.   usage: bench/export_times.py SHAPEC   (Debian's /usr/bin/python3)"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(src, "tools"))
from shapec_tools import zoo  # noqa: E402
from shapec_tools.convert import convert  # noqa: E402

shapec = os.path.abspath(sys.argv[1])
ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
A = "_DimHint.AUTO"
SPECS = {"mlp": {"x": [A, None]}, "encoder": {"x": [A, A, None]}, "resnet18": {"x": [A, None, A, A]},
         "mobilenet_v2": {"x": [A, None, A, A]}}
print("| model | cpu s | cuda s | cpu,cuda s | model.ptx bytes | kernels | ptxas sm_90 s |")
print("|---|---|---|---|---|---|---|")
for name, spec in SPECS.items():
    module, input_names, inputs, _ = zoo.build(name)
    with tempfile.TemporaryDirectory() as tmp:
        path = convert(module, inputs, tmp, input_names=input_names)
        with open(os.path.join(tmp, "spec.json"), "w") as f:
            json.dump({"dynamic_shapes": spec}, f)
        times = []
        for target in ("cpu", "cuda", "cpu,cuda"):
            out = os.path.join(tmp, target.replace(",", "_"))
            t0 = time.perf_counter()
            subprocess.run([shapec, "export", path, "--dynamic", os.path.join(tmp, "spec.json"), "-o", out, "-q",
                            "--target", target], check=True, capture_output=True)
            times.append(time.perf_counter() - t0)
        ptx = os.path.join(tmp, "cuda", "model.ptx")
        with open(ptx) as f:
            kernels = f.read().count(".entry")
        t_ptxas = float("nan")
        if os.access(ptxas, os.X_OK):
            t0 = time.perf_counter()
            subprocess.run([ptxas, "-arch=sm_90", ptx, "-o", os.devnull], check=True)
            t_ptxas = time.perf_counter() - t0
        print(f"| {name} | {times[0]:.2f} | {times[1]:.2f} | {times[2]:.2f} | {os.path.getsize(ptx)} | {kernels} "
              f"| {t_ptxas:.2f} |", flush=True)
