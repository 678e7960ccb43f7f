#!/usr/bin/python3
"""An empty batch costs nothing: a model called with a zero-sized dim that its ranges allow
returns torch's empty output, and asks the heap for no scratch sized by the other dims.

torch 2.14 returns an empty output for every model here at batch 0.  The fuzzer found
(docs/fuzzing.md, test/fuzz/regressions/entry/conv-empty-batch-*) that a convolution on
`[0, 3, 14024958, 16]` asked for one image's column matrix (24 GB) and on
`[0, 3, 16, 2^32]` for 7.4 TB, failing with an empty message.  Each call here runs in a
child whose address space is capped (RLIMIT_AS), so a scratch that size fails the call.
Models are the stored torch 2.14 corpus's; each input's first dim is set to 0 and, for an
image whose spec lets its width vary, the width to 2^32 (still 0 bytes).

usage: test_empty_batch.py SHAPEC SOURCE_DIR"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/, for tap
import tap  # noqa: E402

CAP = 6 << 30  # bytes of address space for a call: Python, NumPy and the library fit well inside

CHILD = r"""
import json, resource, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import shapec
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[4]), int(sys.argv[4])))
m = shapec.load(sys.argv[2])
shapes = json.loads(sys.argv[3])
xs = [np.zeros(s["shape"], s["dtype"]) for s in shapes]
try:
    expected = m.output_shapes(*xs)
except shapec.ShapecError as e:
    print(json.dumps({"refused": str(e)}))
    sys.exit(0)
try:
    ys = m(*xs)
except shapec.ShapecError as e:
    print(json.dumps({"failed": str(e), "code": e.code}))
    sys.exit(0)
ys = ys if isinstance(ys, tuple) else (ys,)
print(json.dumps({"expected": [list(s) for s in expected], "got": [list(y.shape) for y in ys]}))
"""

# the models, and whether their image inputs may be made wide (every dim dynamic)
MODELS = ["conv_pool", "conv_transpose", "group_norm_upsample", "pool1d", "zoo_small_cnn",
          "batchnorm_eval", "sdpa", "embedding", "softmax_ln", "zoo_transformer_encoder"]


def call(lib, shapes, src):
    r = subprocess.run([sys.executable, "-c", CHILD, os.path.join(src, "python"), lib, json.dumps(shapes), str(CAP)],
                       capture_output=True, text=True, timeout=300)
    if r.returncode:
        return {"crashed": r.returncode, "stderr": r.stderr[-600:]}
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    shapec, src = sys.argv[1], sys.argv[2]
    corpus = os.path.join(src, "test", "real", "corpus", "2.14")
    checks = tap.Checks()
    ran_wide = 0
    with tempfile.TemporaryDirectory() as tmp:
        for case in MODELS:
            out = os.path.join(tmp, case)
            r = subprocess.run([shapec, "export", os.path.join(corpus, case, "model.pt2"), "-o", out, "-q"],
                               capture_output=True, text=True)
            checks.check(r.returncode == 0, f"{case}: exports" + ("" if r.returncode == 0 else ": " + r.stderr[-400:]))
            if r.returncode:
                continue
            with open(os.path.join(corpus, case, "answers.json")) as f:
                samples = json.load(f)["sample_inputs"]
            lib = os.path.join(out, "model.so")
            empty = [{"shape": [0] + s["shape"][1:], "dtype": s["dtype"]} for s in samples]
            tries = [("batch 0", empty)]
            wide = [dict(s, shape=s["shape"][:-1] + [1 << 32]) if len(s["shape"]) >= 3 else s for s in empty]
            if wide != empty:
                tries.append(("batch 0, width 2^32", wide))
            for what, shapes in tries:
                got = call(lib, shapes, src)
                if "refused" in got:  # the ranges exclude it (0/1 specialization, a static width)
                    print(f"# {case}, {what}: refused at the entry: {got['refused'][:200]}")
                    continue
                ok = "got" in got and got["got"] == got["expected"] and all(0 in s for s in got["got"])
                checks.check(ok, f"{case}, {what}: the empty output, within {CAP >> 30} GiB" + ("" if ok else ": " + json.dumps(got)[:600]))
                ran_wide += what.endswith("2^32") and ok
    # the finding itself must have run, not been refused
    checks.check(ran_wide >= 2, f"wide empty images ran, not refused ({ran_wide})")
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
