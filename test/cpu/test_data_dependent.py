#!/usr/bin/python3
"""Data-dependent sizes in a compiled model: test/golden/models/item_check.json computes
u0 = x.item(), checks 0 <= u0 <= 100 (torch._check) and returns y.unsqueeze(0).repeat(u0, 1),
whose first size is u0.  The library must read u0 from the data, give the output shape
from shapec_model_output_shapes, check u0's range with a message that names it, and
produce the right values.  Exit 77 without NumPy.

SHAPEC_TEST_TARGET / SHAPEC_TEST_CUDA_EMULATE as in test_cpu_zoo.py: with CUDA code, the
value behind item() is copied back from the device, and the checks are the same.

usage: test_data_dependent.py SHAPEC SOURCE_DIR"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/, for tap
import tap  # noqa: E402

try:
    import numpy as np
except ImportError:
    tap.skip("NumPy is not installed")

shapec, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "test", "cuda"))
import cuda_checks  # noqa: E402

checks = tap.Checks()
check = checks.check


with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "out")
    r = subprocess.run([shapec, "export", os.path.join(src, "test/golden/models/item_check.json"), "--dynamic",
                        os.path.join(src, "test/golden/specs/item_check.json"), "-o", out, "-q"]
                       + cuda_checks.export_flags(), capture_output=True, text=True)
    check(r.returncode == 0, f"item_check compiles ({r.stderr.strip()[-300:]})")
    for arch, ok, msg in cuda_checks.ptxas(out):
        check(ok, f"item_check: its PTX assembles with ptxas -arch={arch} {msg}")
    probe = cuda_checks.no_gpu(os.path.join(out, "model.so"), [[], [60]])
    if probe:
        check(probe[0], "item_check: without a GPU the library loads, checks its guards and says 'no CUDA device'"
                        + ("" if probe[0] else f"\n{probe[1]}"))
    y = np.random.default_rng(0).standard_normal(60).astype(np.float32)
    np.save(os.path.join(tmp, "y.npy"), y)

    def run(item, tag, device):
        np.save(os.path.join(tmp, f"x{tag}.npy"), np.array(item, dtype=np.int64))
        return subprocess.run([shapec, "run", os.path.join(out, "model.so"), "--input", f"x={tmp}/x{tag}.npy",
                               "--input", f"y={tmp}/y.npy", "--out", os.path.join(tmp, f"r{tag}{device}"),
                               "--device", device], capture_output=True, text=True)

    for device in cuda_checks.devices():
        for item in (5, 0, 100):
            res = run(item, item, device)
            ok = res.returncode == 0
            if ok:
                got = np.load(res.stdout.split()[0])
                ok = got.shape == (item, 60) and np.array_equal(got, np.tile(y, (item, 1)))
            check(ok, f"x.item() = {item} on {device}: output [{item}, 60] repeats y ({res.stderr.strip()[-200:]})")
        for item in (101, -1):
            res = run(item, f"bad{item}", device)
            check(res.returncode == 1 and f"u0 = {item} (x.item() at node" in res.stderr and "is outside its range "
                  "[0, 100]" in res.stderr, f"x.item() = {item} on {device} is refused with its range: "
                  f"{res.stderr.strip()[-200:]}")

sys.exit(checks.finish())
