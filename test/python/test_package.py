#!/usr/bin/python3
"""test_package.py - the Python package `shapec` (python/shapec) against PyTorch.

usage: test_package.py SHAPEC SOURCE_DIR    (Debian's /usr/bin/python3, with python3-torch)

The tutorial model as torch 2.14.1 exported it (test/real/corpus/2.14/zoo_tutorial) is
exported by shapec and called from Python: NumPy arrays and torch tensors in and out
(DLPack), keyword inputs, transposed and sliced (non-contiguous) inputs, big-endian inputs,
output_shapes, a failed guard as shapec.GuardError, thread settings, and two libraries in
one process.  Then 0-d inputs: the SymInt n of int_dynamic (x[:n] * 2 + n, real torch
2.14.1's program and outputs) as a Python int, NumPy scalars, 0-d arrays and tensors, and a
0-d float32 and a 0-d bool input (check_ge's program edited to x * s + flag) as Python
numbers, NumPy scalars and 0-d arrays."""
import json
import os
import subprocess
import sys
import tempfile
import zipfile

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
    version = subprocess.run([shapec_bin, "--version"], capture_output=True, text=True).stdout.split()[-1]
    check(shapec.__version__ == version == m.report["shapec_version"],
          f"shapec.__version__ {shapec.__version__} is the CLI's and the report's ({version})")
    info = m.inputs
    check([i.name for i in info] == names and all(i.dtype == "float32" for i in info) and
          all(len(i.shape) == sample[i.name].ndim for i in info) and
          any(isinstance(d, str) for i in info for d in i.shape),
          f"Model.inputs: names, dtypes and symbolic shapes ({info[0]})")
    check([o.name for o in m.outputs] == m.output_names and all(len(o.shape) == w.ndim for o, w in zip(m.outputs, want)),
          f"Model.outputs: names and shapes ({m.outputs[0]})")

    # shapec.export / spec_infer drive the command line; its refusals are ExportError with the diagnostics
    os.environ["SHAPEC"] = shapec_bin
    m_py = shapec.export(os.path.join(case, "model.pt2"), os.path.join(case, "spec.json"), os.path.join(tmp, "py_export"),
                         metadata={"run": "7"})
    got_py, got_cli = m_py(*[sample[n] for n in names]), m(*[sample[n] for n in names])
    check(m_py.metadata == {"run": "7"} and all(np.array_equal(a, b) for a, b in zip(got_cli, got_py)),
          "shapec.export: the same library as the command line's, metadata included")
    conflict = {"dynamic_shapes": [["_DimHint.AUTO", "_DimHint.AUTO"], ["dx"], ["dx", "_DimHint.AUTO"], ["_DimHint.AUTO"]],
                "dims": {"dx": {"min": 2, "max": 64, "derived": []}}}
    try:
        shapec.export(os.path.join(case, "model.pt2"), conflict, os.path.join(tmp, "py_conflict"))
        check(False, "shapec.export ran a spec whose dims share dx with different samples")
    except shapec.ExportError as e:
        check(e.code == 1 and e.diagnostics and e.diagnostics[0]["code"] == "SC0411" and "implies dx" in str(e),
              f"shapec.export raises ExportError with the diagnostics: {str(e).splitlines()[0][-80:]}")
    obs = os.path.join(tmp, "obs")
    for batch in (6, 9):
        shapec.record_shapes(obs, {"w": [batch, 5], "x": [4], "y": [8, 4], "z": [32]})
    inferred = shapec.spec_infer(obs, model=os.path.join(case, "model.pt2"))
    shapes = inferred["dynamic_shapes"]
    w_dims = shapes["w"] if isinstance(shapes, dict) else shapes[0]
    check(w_dims[0] == "_DimHint.AUTO" and w_dims[1] == 5,
          f"shapec.spec_infer: the dim that changed is AUTO, the rest static ({w_dims})")

    got = m(*[sample[n] for n in names])
    check(isinstance(got, tuple) and all(isinstance(g, np.ndarray) for g in got), "NumPy in: a tuple of NumPy arrays out")
    err = max(float(np.abs(g - w).max()) for g, w in zip(got, want))
    check(err < 1e-5, f"matches torch 2.14.1's outputs (max error {err:.1e})")

    big = {k: v.astype(v.dtype.newbyteorder(">")) for k, v in sample.items()}  # the same values, byte-swapped
    got_be = m(*[big[k] for k in names])
    check(all(np.array_equal(a, b) for a, b in zip(got, got_be)), "big-endian inputs give the native inputs' outputs")

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

    # a derived size's root read back from its input reads as written: x.size()[0] - 1
    with open(os.path.join(tmp, "derived.json"), "w") as f:
        json.dump({"dynamic_shapes": {"x": ["dx + 1", None], "y": ["2*dx + 2", None]},
                   "dims": {"dx": {"min": 3, "max": 64, "derived": ["dx + 1", "2*dx + 2"]}}}, f)
    subprocess.run([shapec_bin, "export", os.path.join(src, "test", "golden", "models", "cat_double.json"), "--dynamic",
                    os.path.join(tmp, "derived.json"), "-o", os.path.join(tmp, "derived"), "-q"], check=True,
                   capture_output=True)
    d = shapec.load(os.path.join(tmp, "derived", "model.so"))
    try:
        d(np.zeros((4, 3), np.float32), np.zeros((9, 3), np.float32))
        check(False, "y of 9 rows beside x of 4 (dx = 3: y must be 8) is refused")
    except shapec.GuardError as e:
        check("dx = x.size()[0] - 1" in str(e) and "2*(x.size()[0] - 1) + 2" in str(e) and "- -" not in str(e),
              f"a derived size's root reads as written: {str(e)[:160]}")
    try:
        d(np.zeros((3, 3), np.float32), np.zeros((4, 3), np.float32))
        check(False, "x of 3 rows (dx = 2, below its min 3) is refused")
    except shapec.GuardError as e:
        check(str(e).startswith("Guard failed: x.size()[0] >= 4"), f"x [dx + 1] is held to [4, 65]: {str(e)[:100]}")

    # a derived size is held to its own range, checked first, in torch's words: x [k + 1] of
    # k in [2, 16] refuses x of 2 rows (torch 2.14's ep.module(): Guard failed: x.size()[0] >= 3)
    subprocess.run([shapec_bin, "export", os.path.join(src, "test", "golden", "models", "slice_plus_one_auto.pt2"),
                    "--dynamic", os.path.join(src, "test", "golden", "specs", "slice_plus_one.json"), "-o",
                    os.path.join(tmp, "plus_one"), "-q"], check=True, capture_output=True)
    p1 = shapec.load(os.path.join(tmp, "plus_one", "model.so"))
    for rows in (1, 2):
        try:
            p1(np.zeros((rows, 3), np.float32), np.zeros((rows - 1, 3), np.float32))
            check(False, f"x of {rows} rows (k = {rows - 1}, below its min 2) is refused")
        except shapec.GuardError as e:
            check(str(e).startswith("Guard failed: x.size()[0] >= 3"), f"x of {rows} rows refused: {str(e)[:100]}")
    check(p1(np.zeros((3, 3), np.float32), np.zeros((2, 3), np.float32)).shape == (2, 3), "x of 3 rows (k = 2) runs")



def scaled_program(tmp):
    """check_ge (x + 1 with torch._check(x.shape[0] >= 4), real torch 2.14) made x * s + flag
    with s a 0-d float32 input and flag a 0-d bool input."""
    with zipfile.ZipFile(os.path.join(src, "test", "real", "corpus", "2.14", "check_ge", "model.pt2")) as z:
        p = json.loads(z.read(next(m for m in z.namelist() if m.endswith("models/model.json"))))
    g = p["graph_module"]["graph"]
    for name, code in (("s", 7), ("flag", 12)):  # torch's ScalarType FLOAT, BOOL
        g["inputs"].append({"as_tensor": {"name": name}})
        p["graph_module"]["signature"]["input_specs"].append({"user_input": {"arg": {"as_tensor": {"name": name}}}})
        g["tensor_values"][name] = dict(g["tensor_values"]["x"], dtype=code, sizes=[], strides=[])
    first = g["nodes"][0]
    first.update(target="torch.ops.aten.mul.Tensor", name="mul", outputs=[{"as_tensor": {"name": "mul"}}])
    first["inputs"][1] = {"name": "other", "arg": {"as_tensor": {"name": "s"}}, "kind": 1}
    g["tensor_values"]["mul"] = g["tensor_values"]["add"]
    g["nodes"].append(dict(first, target="torch.ops.aten.add.Tensor", name="add", outputs=[{"as_tensor": {"name": "add"}}],
                           inputs=[{"name": "self", "arg": {"as_tensor": {"name": "mul"}}, "kind": 1},
                                   {"name": "other", "arg": {"as_tensor": {"name": "flag"}}, "kind": 1}]))
    path = os.path.join(tmp, "scaled.json")
    with open(path, "w") as f:
        json.dump(p, f)
    return path


# 0-d inputs (Python numbers, NumPy scalars, 0-d arrays and tensors) and big-endian arrays
with tempfile.TemporaryDirectory() as tmp:
    dyn = os.path.join(src, "test", "real", "corpus", "2.14", "int_dynamic")  # x[:n] * 2 + n, n a SymInt
    dyn_answers = json.load(open(os.path.join(dyn, "answers.json")))
    x8 = np.array(dyn_answers["sample_inputs"][0]["data"], np.float32).reshape(dyn_answers["sample_inputs"][0]["shape"])
    n = dyn_answers["sample_inputs"][1]["value"]
    want_dyn = np.array(dyn_answers["sample_outputs"][0]["data"], np.float32).reshape(dyn_answers["sample_outputs"][0]["shape"])
    for out, model in (("int_dynamic", os.path.join(dyn, "model.pt2")), ("scaled", scaled_program(tmp))):
        subprocess.run([shapec_bin, "export", model, "-o", os.path.join(tmp, out), "-q"], check=True, capture_output=True)
    m = shapec.load(os.path.join(tmp, "int_dynamic", "model.so"))
    for label, k in (("a Python int", n), ("a NumPy int64", np.int64(n)), ("a 0-d int64 array", np.array(n)),
                     ("a big-endian 0-d int64", np.array(n, ">i8")), ("a 0-d int32 array", np.array(n, np.int32)),
                     ("a 0-d torch tensor", torch.tensor(n))):
        try:
            got_n = m(x8, k)
            got_n = got_n.numpy() if isinstance(got_n, torch.Tensor) else got_n
            check(np.allclose(got_n, want_dyn, atol=1e-5), f"int_dynamic with n as {label} matches torch 2.14.1")
        except (shapec.ShapecError, TypeError) as e:
            check(False, f"int_dynamic with n as {label}: {e}")
    m = shapec.load(os.path.join(tmp, "scaled", "model.so"))
    x = np.arange(6, dtype=np.float32)
    for label, s_, flag in (("Python float and bool", 0.5, True), ("NumPy scalars", np.float32(0.5), np.bool_(False)),
                            ("0-d arrays", np.array(0.5), np.array(True)), ("keywords", 0.5, False)):
        try:
            got_s = m(x=x, s=s_, flag=flag) if label == "keywords" else m(x, s_, flag)
            check(np.array_equal(got_s, x * np.float32(s_) + np.float32(flag)), f"x * s + flag with {label}")
        except (shapec.ShapecError, TypeError) as e:
            check(False, f"x * s + flag with {label}: {e}")
    for label, xs in (("float32", x.astype(">f4")), ("sliced float32", np.arange(12, dtype=">f4")[::2])):
        check(not xs.dtype.isnative and np.array_equal(m(xs, 2.0, False), xs.astype(np.float32) * 2),
              f"a big-endian {label} input is read by value")

sys.exit(checks.finish())
