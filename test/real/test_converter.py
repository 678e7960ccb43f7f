#!/usr/bin/env python3
"""test_converter.py - tools/torch2shapec's torch.export path under real PyTorch 2.14,
end to end: the converter runs in the real-torch chroot (scripts/real-torch.sh) with a
dynamic_shapes spec; shapec exports what it wrote (the .pt2 archive and the .json form,
without a spec: the program's own dynamism), builds the library and runs it at several
shapes; torch 2.14 runs ep.module() of the same archive at the same shapes
(converter_reference.py).  Ranges, verdicts and outputs (1e-4 relative) must agree.

usage: test_converter.py SHAPEC SOURCE_DIR
Exit 77 (skipped) when the 2.14 chroot has not been set up (scripts/real-torch.sh setup):
CI does not build it."""
import ctypes
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_corpus import close, filled, run_outputs  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/, for tap
import tap  # noqa: E402

AUTO = "_DimHint.AUTO"
# name, factory, --input shapes, spec (torch's serialized form), shapes to run (past a
# range end included: both must refuse)
CASES = [
    ("mlp", "shapec_tools.zoo:mlp", ["x=8,784"],
     {"dims": {"batch": {"derived": [], "max": 1024, "min": 0}}, "dynamic_shapes": [["batch", 784]]},
     [[[8, 784]], [[1, 784]], [[1024, 784]], [[0, 784]], [[1025, 784]], [[8, 783]]]),
    ("tutorial", "shapec_tools.zoo:TutorialModel", ["w=6,5", "x=4", "y=8,4", "z=32"],
     {"dims": {}, "dynamic_shapes": [[AUTO, 5], [AUTO], [AUTO, AUTO], [AUTO]]},
     [[[6, 5], [4], [8, 4], [32]], [[3, 5], [7], [2, 7], [14]], [[3, 5], [7], [2, 7], [15]], [[3, 5], [7], [2, 6], [12]]]),
    ("encoder", "shapec_tools.zoo:EncoderBlock", ["x=2,16,256"],
     {"dims": {"b": {"derived": [], "max": 64, "min": 1}, "t": {"derived": [], "max": 512, "min": 2}},
      "dynamic_shapes": [["b", "t", 256]]},
     [[[2, 16, 256]], [[1, 2, 256]], [[3, 512, 256]], [[2, 513, 256]], [[2, 1, 256]]]),
]

checks = tap.Checks()
check = checks.check


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def in_torch(src, *args):
    return run([os.path.join(src, "scripts", "real-torch.sh"), "--torch", "2.14", "run", *args])


def library_ranges(report):
    return {k: [v["min"], v["max"]] for k, v in report.get("range_constraints", {}).items()}


def check_case(shapec, src, tmp, name, factory, inputs, spec, runs):
    d = os.path.join(tmp, name)
    os.makedirs(d)
    spec_path = os.path.join(d, "spec.json")
    with open(spec_path, "w") as f:
        json.dump(spec, f)
    conv = os.path.join(d, "conv")
    r = in_torch(src, "tools/torch2shapec", factory, *[a for i in inputs for a in ("--input", i)],
                 "--dynamic", spec_path, "--pt2", "-o", conv)
    made = all(os.path.exists(os.path.join(conv, f)) for f in ("model.json", "model.safetensors", "model.pt2"))
    check(r.returncode == 0 and made, f"{name}: torch2shapec under 2.14 with --dynamic writes model.json, "
                                      f"model.safetensors, model.pt2 ({r.stderr.strip()[-300:]})")
    if not made:
        return
    shapes_path = os.path.join(d, "shapes.json")
    with open(shapes_path, "w") as f:
        json.dump(runs, f)
    ref_path = os.path.join(d, "torch.json")
    r = in_torch(src, "test/real/converter_reference.py", os.path.join(conv, "model.pt2"), shapes_path, ref_path)
    check(r.returncode == 0, f"{name}: torch 2.14 loads the archive and runs it ({r.stderr.strip()[-300:]})")
    if r.returncode != 0:
        return
    ref = json.load(open(ref_path))
    check(any(lo != hi for lo, hi in ref["range_constraints"].values()),
          f"{name}: the archive carries dynamic sizes ({ref['range_constraints']})")
    for form in ("model.pt2", "model.json"):
        out = os.path.join(d, "out-" + form)
        r = run([shapec, "export", os.path.join(conv, form), "-o", out, "-q"])
        check(r.returncode == 0, f"{name}: shapec export {form}, no spec ({r.stderr.strip()[:300]})")
        if r.returncode != 0:
            continue
        report = json.load(open(os.path.join(out, "constraints.json")))
        ranges = library_ranges(report)
        check(report.get("dynamism") == "program" and all(ranges.get(k) == v for k, v in ref["range_constraints"].items()),
              f"{name} {form}: the program's own ranges, as torch's ({ranges} vs {ref['range_constraints']})")
        lib = ctypes.CDLL(os.path.join(out, "model.so"))
        for want in ref["runs"]:
            got = run_outputs(lib, [filled(s, k) for k, s in enumerate(want["shapes"])])
            if "error" in want:
                check(isinstance(got, str), f"{name} {form} at {want['shapes']}: refused as torch refuses "
                                            f"(torch: {want['error'][:100]!r}; shapec: {str(got)[:100]!r})")
                continue
            if isinstance(got, str):
                check(False, f"{name} {form} at {want['shapes']}: runs as torch runs (shapec: {got[:200]})")
                continue
            same = len(got) == len(want["outputs"]) and all(
                list(g.shape) == w["shape"] and close(g.flatten(), w["data"]) for g, w in zip(got, want["outputs"]))
            check(same, f"{name} {form} at {want['shapes']}: outputs equal torch 2.14's (1e-4 relative)")


def check_errors(src, tmp):
    d = os.path.join(tmp, "errors")
    os.makedirs(d)
    bad = os.path.join(d, "bad.json")
    with open(bad, "w") as f:
        f.write("{not json")
    r = in_torch(src, "tools/torch2shapec", "shapec_tools.zoo:mlp", "--input", "x=8,784", "--dynamic", bad, "-o", d)
    check(r.returncode == 1 and "not a dynamic_shapes spec" in r.stderr and "bad.json" in r.stderr,
          f"torch2shapec: an unreadable spec is a clear error naming the file ({r.stderr.strip()[-200:]})")
    wrong = os.path.join(d, "wrong.json")  # the linear layer needs 784 features: torch refuses a dynamic dim 1
    with open(wrong, "w") as f:
        json.dump({"dims": {"f": {"derived": [], "max": 2048, "min": 2}}, "dynamic_shapes": [[8, "f"]]}, f)
    r = in_torch(src, "tools/torch2shapec", "shapec_tools.zoo:mlp", "--input", "x=8,784", "--dynamic", wrong, "-o", d)
    check(r.returncode == 1 and "torch.export refuses" in r.stderr and "f" in r.stderr,
          f"torch2shapec: a spec torch refuses gives torch's message ({r.stderr.strip()[-200:]})")
    check(not os.path.exists(os.path.join(d, "model.json")), "torch2shapec: nothing written when torch refuses")


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    shapec, src = argv[1], argv[2]
    root = os.environ.get("SHAPEC_REAL_TORCH_DIR", "/var/lib/shapec/real-torch")
    if not os.path.exists(os.path.join(root, "sid", ".shapec-ready")):
        tap.skip(f"no PyTorch 2.14 chroot under {root} (scripts/real-torch.sh --torch 2.14 setup)")
    with tempfile.TemporaryDirectory(prefix="shapec-converter-") as tmp:
        for case in CASES:
            check_case(shapec, src, tmp, *case)
        check_errors(src, tmp)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
