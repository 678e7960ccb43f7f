#!/usr/bin/python3
"""test_package.py - the Python package `shapec` (python/shapec) against PyTorch.

usage: test_package.py SHAPEC SOURCE_DIR    (Debian's /usr/bin/python3, with python3-torch)

The tutorial model as torch 2.14.1 exported it (test/real/corpus/2.14/zoo_tutorial) is
exported by shapec and called from Python: NumPy arrays and torch tensors in and out
(DLPack), keyword inputs, transposed and sliced (non-contiguous) inputs, output_shapes, a
failed guard as shapec.GuardError, thread settings, and two libraries in one process."""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/, for tap
import tap  # noqa: E402

shapec_bin, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
sys.path.insert(0, os.path.join(src, "python"))
import shapec  # noqa: E402

checks = tap.Checks()
check = checks.check


case = os.path.join(src, "test", "real", "corpus", "2.14", "zoo_tutorial")
answers = json.load(open(os.path.join(case, "answers.json")))
names = [i["name"] for i in answers["inputs"] if not i["name"].startswith(("p_", "b_", "c_"))]
sample = {n: np.array(t["data"], t["dtype"]).reshape(t["shape"]) for n, t in zip(names, answers["sample_inputs"])}
want = [np.array(t["data"], t["dtype"]).reshape(t["shape"]) for t in answers["sample_outputs"]]

with tempfile.TemporaryDirectory() as tmp:
    with open(os.path.join(tmp, "static.json"), "w") as f:  # every dim static (null)
        json.dump({"dynamic_shapes": [None] * 4}, f)
    for out, spec in (("dynamic", ["--dynamic", os.path.join(case, "spec.json")]),
                      ("static", ["--dynamic", os.path.join(tmp, "static.json")])):
        subprocess.run([shapec_bin, "export", os.path.join(case, "model.pt2"), *spec, "-o", os.path.join(tmp, out), "-q"],
                       check=True, capture_output=True)
    m = shapec.load(os.path.join(tmp, "dynamic", "model.so"))
    check(m.input_names == names, f"input names {m.input_names} are the program's {names}")
    check(m.report["status"] == "ok" and m.output_dtypes == ["float32"] * len(want), "the embedded report and dtypes")

    got = m(*[sample[n] for n in names])
    check(isinstance(got, tuple) and all(isinstance(g, np.ndarray) for g in got), "NumPy in: a tuple of NumPy arrays out")
    err = max(float(np.abs(g - w).max()) for g, w in zip(got, want))
    check(err < 1e-5, f"matches torch 2.14.1's outputs (max error {err:.1e})")

    got_kw = m(**{n: sample[n] for n in reversed(names)})
    check(all(np.array_equal(a, b) for a, b in zip(got, got_kw)), "keyword inputs in any order")

    tensors = [torch.from_numpy(sample[n]) for n in names]
    got_t = m(*tensors)
    check(all(isinstance(g, torch.Tensor) for g in got_t), "torch in: torch tensors out (DLPack)")
    check(all(np.array_equal(g.numpy(), a) for g, a in zip(got_t, got)), "torch tensors give the same numbers")

    # non-contiguous inputs: a transposed view and a sliced view holding the same values
    w = sample["w"]
    w_t = np.ascontiguousarray(w.T).T                    # Fortran order: strides (4, 4*rows)
    y = sample["y"]
    y_big = np.zeros((y.shape[0] * 2, y.shape[1] + 3), np.float32)
    y_big[::2, 1:1 + y.shape[1]] = y
    y_s = y_big[::2, 1:1 + y.shape[1]]                   # strided rows, offset columns
    check(not w_t.flags.c_contiguous and not y_s.flags.c_contiguous, "the views really are non-contiguous")
    args = dict(sample, w=w_t, y=y_s)
    got_s = m(**args)
    check(all(np.array_equal(a, b) for a, b in zip(got, got_s)), "transposed and sliced NumPy inputs give the same outputs")
    args_t = {n: torch.from_numpy(v) for n, v in sample.items()}
    args_t["w"] = torch.from_numpy(np.ascontiguousarray(w.T)).t()
    args_t["y"] = torch.from_numpy(y_big)[::2, 1:1 + y.shape[1]]
    got_st = m(**args_t)
    check(not args_t["w"].is_contiguous() and all(np.array_equal(g.numpy(), a) for g, a in zip(got_st, got)),
          "transposed and sliced torch tensors give the same outputs")

    shapes = m.output_shapes(*[sample[n] for n in names])
    check(shapes == [tuple(w_.shape) for w_ in want], f"output_shapes {shapes}")

    bad = dict(sample, z=np.zeros(sample["z"].shape[0] + 1, np.float32))
    try:
        m(**bad)
        check(False, "a z that breaks the guard is refused")
    except shapec.GuardError as e:
        check(isinstance(e, AssertionError) and e.code == 1 and "z.size()[0]" in str(e),
              f"a broken guard raises GuardError (an AssertionError) naming z.size()[0]: {str(e)[:120]}")
    try:
        m(*[sample[n] for n in names[:-1]])
        check(False, "a missing input is refused")
    except TypeError as e:
        check("missing input" in str(e), f"a missing input is a TypeError: {e}")

    check(m.set_num_threads(2) == 2 and m.get_num_threads() == 2, "set_num_threads(2) / get_num_threads()")
    m.set_num_threads(1)

    # two libraries in one process: each keeps its own code and checks
    s = shapec.load(os.path.join(tmp, "static", "model.so"))
    got_static = s(*[sample[n] for n in names])
    check(all(np.array_equal(a, b) for a, b in zip(got, got_static)), "a second library loaded beside the first agrees")
    wider = dict(sample, w=np.ones((sample["w"].shape[0] + 2, sample["w"].shape[1]), np.float32))
    try:
        s(**wider)
        check(False, "the static library refuses another size")
    except shapec.GuardError:
        check(m.output_shapes(**wider)[0][0] == sample["w"].shape[0] + 2,
              "the static library refuses a size the dynamic one, loaded in the same process, accepts")

sys.exit(checks.finish())
