#!/usr/bin/python3
"""export_scaling.py - export time against graph size: Sequential(*[Linear(16, 16), ReLU()] * L)
with a dynamic batch (L layers make 5L graph nodes counting parameters, as torch's FX
graph counts them), exported by shapec with -v, whose phase timings it prints.

usage: bench/export_scaling.py SHAPEC [LAYERS ...]   (Debian's /usr/bin/python3; default 250 500 1000 2000)"""
import json
import os
import subprocess
import sys
import tempfile
import time

from bench_common import slowest_phases

import torch

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(SRC, "tools"))
from shapec_tools.convert import convert  # noqa: E402

shapec = os.path.abspath(sys.argv[1])
print("| layers | graph nodes | export s | slowest phases |")
print("|---|---|---|---|")
for layers in [int(a) for a in sys.argv[2:]] or [250, 500, 1000, 2000]:
    torch.manual_seed(0)
    stack = []
    for _ in range(layers):
        stack += [torch.nn.Linear(16, 16), torch.nn.ReLU()]
    with tempfile.TemporaryDirectory() as tmp:
        path = convert(torch.nn.Sequential(*stack).eval(), [torch.randn(4, 16)], tmp, input_names=["x"])
        with open(os.path.join(tmp, "spec.json"), "w") as f:
            json.dump({"dynamic_shapes": {"x": ["_DimHint.AUTO", None]}}, f)
        nodes = len(json.load(open(path))["graph_module"]["graph"]["nodes"]) + 2 * layers
        t0 = time.perf_counter()
        r = subprocess.run([shapec, "export", path, "--dynamic", os.path.join(tmp, "spec.json"), "-o",
                            os.path.join(tmp, "out"), "-q", "-v"], capture_output=True, text=True, check=True)
        total = time.perf_counter() - t0
        top = slowest_phases(r.stderr)
        print(f"| {layers} | {nodes} | {total:.2f} | {top} |", flush=True)
