"""A GPU bundle: the CUDA libraries that the numerics tests export here, each with its
inputs and the outputs ATen computed here, written to a folder that a machine with a GPU
but without shapec, LLVM or the reference evaluator runs with run_bundle.py.

SHAPEC_TEST_BUNDLE=DIR makes test_cpu_ops.py and test_cpu_zoo.py write DIR/<group>/<case>/:
  model.so (and model.weights, for --external-weights)
  in<run>_<input>.npy, want<run>_<output>.npy
  after<run>_<input>.npy: an input's value after the call, where the program changes it
  case.json: {"inputs": [names], "runs": [{"inputs": [files], "want": [files],
                                           "after": {input index: file}}]}"""
import json
import os
import shutil

import numpy as np

DIR = os.environ.get("SHAPEC_TEST_BUNDLE")


def save(group, name, outdir, input_names, runs):
    """runs: [(inputs, wanted outputs[, the inputs after the call])], each a list of torch
    tensors or NumPy arrays."""
    dest = os.path.join(DIR, group, name.replace("@", "_at_"))
    os.makedirs(dest, exist_ok=True)
    for f in ("model.so", "model.weights"):
        if os.path.exists(os.path.join(outdir, f)):
            shutil.copyfile(os.path.join(outdir, f), os.path.join(dest, f))
    case = {"name": name, "inputs": list(input_names), "runs": []}
    for k, (xs, wants, *after) in enumerate(runs):
        entry = {"inputs": [], "want": [], "after": {}}
        for i, (n, x, y) in enumerate(zip(input_names, xs, after[0] if after else xs)):
            if not np.array_equal(np.asarray(x), np.asarray(y), equal_nan=np.asarray(x).dtype.kind == "f"):
                entry["after"][str(i)] = f"after{k}_{n}.npy"
                np.save(os.path.join(dest, entry["after"][str(i)]), np.asarray(y))
        for n, x in zip(input_names, xs):
            entry["inputs"].append(f"in{k}_{n}.npy")
            np.save(os.path.join(dest, entry["inputs"][-1]), np.asarray(x))
        for j, w in enumerate(wants):
            entry["want"].append(f"want{k}_{j}.npy")
            np.save(os.path.join(dest, entry["want"][-1]), np.asarray(w))
        case["runs"].append(entry)
    with open(os.path.join(dest, "case.json"), "w") as f:
        json.dump(case, f, indent=1)
