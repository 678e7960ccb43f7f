#!/usr/bin/python3
"""Reads at indices that come from the caller's data (gather, index_select, embedding, select
at an item()) touch only memory the call owns, and answer as torch 2.14 does: a valid index
gives torch's output, an invalid one (too large; negative, which only select wraps) fails
the call with torch's words and writes nothing.  Also the entry's own refusals of what would reach outside a
buffer: a byte_offset that wraps the address space, and a program whose input is a string.

The programs and torch's answers were written by real torch 2.14.1 (gen_index_bounds.py into
test/cpu/index_bounds/).  Each program is exported once as a cpu,cuda library with its CUDA
path emulated on the host (--cuda-emulate), and every case runs on both paths.  Outputs lie
in a larger buffer whose tail must stay untouched.

usage: test_index_bounds.py SHAPEC SOURCE_DIR"""
import ctypes
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/, for tap
import tap  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "tools"))
from shapec_tools.model_library import Device, DType, Tensor  # noqa: E402  (the ABI's structs)

shapec, src = sys.argv[1], sys.argv[2]
HERE = os.path.join(src, "test", "cpu", "index_bounds")
checks = tap.Checks()
check = checks.check
DTYPES = {"float32": (np.float32, 2, 32), "int64": (np.int64, 0, 64)}
SLACK = 16  # elements after each output that must keep their pattern


def tensor(keep, a, device=1, offset=0, data=None, strides=None):
    code, bits = DTYPES[a.dtype.name][1:]
    shape = (ctypes.c_int64 * max(1, a.ndim))(*a.shape)
    st = None
    if strides is not None:
        held = (ctypes.c_int64 * max(1, len(strides)))(*strides)
        keep.append(held)
        st = ctypes.cast(held, ctypes.c_void_p)
    keep += [shape, a]
    return Tensor(a.ctypes.data if data is None else data, Device(device, 0), a.ndim, DType(code, bits, 1), shape, st,
                  offset)


def call(lib, ins, outs):
    err = ctypes.create_string_buffer(1024)
    rc = lib.shapec_model_run((Tensor * len(ins))(*ins), (Tensor * len(outs))(*outs), err, 1024)
    return rc, err.value.decode()


def export(model, out, *extra):
    r = subprocess.run([shapec, "export", model, "-o", out, "-q", *extra], capture_output=True, text=True)
    return r.returncode, r.stderr


def array(t):
    return np.array(t["values"], DTYPES[t["dtype"]][0]).reshape(t["shape"])


def output_shape(name, xs):
    if name.startswith("gather"):
        return xs[1].shape
    if name == "index_select_dim0":
        return (xs[1].size, xs[0].shape[1])
    if name == "index_select_dim1":
        return (xs[0].shape[0], xs[1].size)
    if name == "select_item":
        return xs[0].shape[1:]
    if name.startswith("scatter"):
        return xs[0].shape
    return xs[1].shape + (xs[0].shape[1],)  # embedding


def run_case(lib, name, case, device):
    """Runs one stored case on one path: torch's output within the output's own bytes, or
    torch's words and nothing written."""
    xs = [array(t) for t in case["inputs"]]
    shape = output_shape(name, xs)
    n = int(np.prod(shape))
    buf = np.full(n + SLACK, -7.25, np.float32)
    keep = []
    rc, msg = call(lib, [tensor(keep, x, device) for x in xs], [tensor(keep, buf[:n].reshape(shape), device)])
    path = "CUDA (emulated)" if device == 2 else "CPU"
    what = f"{name} {case['what']} on the {path} path"
    check(np.all(buf[n:] == -7.25), f"{what}: nothing written past the output")
    if "output" in case:
        want = array(case["output"])
        check(rc == 0 and np.array_equal(buf[:n].reshape(shape), want), f"{what}: torch's output ({msg})")
    elif name == "select_item" and xs[1] >= 0:
        # the analysis bounds the item() from above (select's guard), so the library stops
        # at the item() with the range; below, only select's own check stands, in torch's words
        check(rc != 0 and msg.startswith(f"u0 = {xs[1]} (") and "is outside its range [-int_oo, 3]" in msg and
              np.all(buf[:n] == -7.25), f"{what}: fails at the item() with its range, writes nothing (code {rc}: {msg})")
    else:
        check(rc != 0 and msg.startswith(case["message"]) and np.all(buf[:n] == -7.25),
              f"{what}: fails with torch's words '{case['message']}', writes nothing (code {rc}: {msg})")


# programs whose operators have no CUDA lowering yet (scatter): the CPU path alone
CPU_ONLY = {"scatter_add", "scatter_dynamic"}


def stored_cases(tmp):
    stored = json.load(open(os.path.join(HERE, "cases.json")))
    check(stored["torch"].startswith("2.14"), f"the answers are torch 2.14's ({stored['torch']})")
    for name, cases in stored["cases"].items():
        out = os.path.join(tmp, name)
        cpu_only = name in CPU_ONLY
        rc, err = export(os.path.join(HERE, name + ".json"), out,
                         *(("--target", "cpu") if cpu_only else ("--target", "cpu,cuda", "--cuda-emulate")))
        if rc:
            check(False, f"{name} exports ({err.strip()[-300:]})")
            continue
        lib = ctypes.CDLL(os.path.join(out, "model.so"))
        for case in cases:
            for device in (1,) if cpu_only else (1, 2):
                run_case(lib, name, case, device)


def program(name):
    return json.load(open(os.path.join(HERE, name + ".json")))


def gather_size_checks(tmp):
    """torch's gather checks on the sizes: at export where they are known, in the library
    where they are symbolic (the guard torch wrote removed, so that the kernel sees it)."""
    p = program("gather_4x7")
    index_name = p["graph_module"]["signature"]["input_specs"][1]["user_input"]["arg"]["as_tensor"]["name"]
    out_name = p["graph_module"]["graph"]["nodes"][0]["outputs"][0]["as_tensor"]["name"]
    for sizes, words in (([6, 7], "Size does not match at dimension 0 expected index [6, 7] to be no larger than self "
                                  "[5, 2] apart from dimension 1"),
                         ([4, 7, 1], "Index tensor must have the same number of dimensions as input tensor")):
        for v in (index_name, out_name):
            meta = p["graph_module"]["graph"]["tensor_values"][v]
            meta["sizes"] = [{"as_int": s} for s in sizes]
            meta["strides"] = [{"as_int": int(np.prod(sizes[k + 1:]))} for k in range(len(sizes))]
        model = os.path.join(tmp, "gather_bad_sizes.json")
        json.dump(p, open(model, "w"))
        rc, err = export(model, os.path.join(tmp, "gather_bad_sizes"))
        check(rc != 0 and words in err and "Traceback" not in err and "Segmentation" not in err,
              f"an index of sizes {sizes} is refused at export with torch's words ({rc}: {err.strip()[-300:]})")

    p = program("gather_dynamic")
    p.pop("guards_code", None)
    model = os.path.join(tmp, "gather_unguarded.json")
    json.dump(p, open(model, "w"))
    out = os.path.join(tmp, "gather_unguarded")
    rc, err = export(model, out, "--target", "cpu,cuda", "--cuda-emulate")
    if rc:
        check(False, f"gather_dynamic without guards_code exports ({err.strip()[-300:]})")
        return
    lib = ctypes.CDLL(os.path.join(out, "model.so"))
    x = np.arange(10, dtype=np.float32).reshape(5, 2)
    for device in (1, 2):
        for shape, words in (((6, 3), "Size does not match at dimension 0 expected index [6, 3] to be no larger than "
                                      "self [5, 2] apart from dimension 1"),
                             ((0, 9), None)):
            index = np.zeros(shape, np.int64)
            n = index.size
            buf = np.full(n + SLACK, -7.25, np.float32)
            keep = []
            rc, msg = call(lib, [tensor(keep, x, device), tensor(keep, index, device)],
                           [tensor(keep, buf[:n].reshape(shape), device)])
            if words:
                check(rc != 0 and msg.startswith(words) and np.all(buf == -7.25),
                      f"device {device}: an index [6, 3] of self [5, 2] with symbolic sizes fails in the library with "
                      f"torch's words, writes nothing ({rc}: {msg})")
            else:
                check(rc == 0 and np.all(buf == -7.25), f"device {device}: an empty index [0, 9] is not checked, as in "
                      f"torch ({rc}: {msg})")


def byte_offsets(tmp):
    """data + byte_offset must not wrap: an offset of 2^64 - 4 from data + 4 would read x's
    own first bytes, but through an address the caller does not own; refused whether the
    entry checks the tensor inline (no strides) or in the runtime (strides given)."""
    out = os.path.join(tmp, "gather_4x7")
    lib = ctypes.CDLL(os.path.join(out, "model.so"))
    x = np.arange(1, 11, dtype=np.float32).reshape(5, 2)
    index = (np.arange(28).reshape(4, 7) % 2).astype(np.int64)
    want = x[np.arange(4)[:, None], index]
    wrap = (1 << 64) - 4
    for device in (1, 2):
        for strides in (None, [2, 1]):
            how = "inline" if strides is None else "in the runtime"
            keep = []
            y = np.full((4, 7), np.nan, np.float32)
            padded = np.zeros(12, np.float32)
            padded[2:] = x.ravel()
            rc, msg = call(lib, [tensor(keep, padded[2:].reshape(5, 2), device, offset=0, strides=strides),
                                 tensor(keep, index, device)], [tensor(keep, y, device)])
            check(rc == 0 and np.array_equal(y, want), f"device {device}, checked {how}: runs ({msg})")
            y[:] = np.nan
            rc, msg = call(lib, [tensor(keep, padded.reshape(6, 2)[:5], device, offset=8, data=padded.ctypes.data,
                                        strides=strides), tensor(keep, index, device)], [tensor(keep, y, device)])
            check(rc == 0 and np.array_equal(y, want), f"device {device}, checked {how}: a byte_offset of 8 runs ({msg})")
            for what, data, offset in (("2^64 - 4 from data + 4", x.ctypes.data + 4, wrap),
                                       ("2^63", x.ctypes.data, 1 << 63),
                                       ("0 from data 16 bytes below 2^64", (1 << 64) - 16, 0)):
                y[:] = np.nan
                rc, msg = call(lib, [tensor(keep, x, device, offset=offset, data=data, strides=strides),
                                     tensor(keep, index, device)], [tensor(keep, y, device)])
                check(rc == 2 and "input 'xs_0' has byte_offset" in msg and "wraps around the address space" in msg
                      and np.all(np.isnan(y)), f"device {device}, checked {how}: a byte_offset {what} is refused "
                      f"({rc}: {msg})")
            y[:] = np.nan
            rc, msg = call(lib, [tensor(keep, x, device, strides=strides), tensor(keep, index, device)],
                           [tensor(keep, y, device, offset=wrap, data=y.ctypes.data + 4)])
            check(rc == 2 and "output" in msg and "wraps around the address space" in msg and np.all(np.isnan(y)),
                  f"device {device}, checked {how}: an output's wrapping byte_offset is refused ({rc}: {msg})")


def string_inputs(tmp):
    """A user input that is a string constant (torch.export writes {"as_string": ...} for a
    str argument) is no tensor the library can take: a diagnostic, never a crash."""
    base = json.load(open(os.path.join(src, "test", "golden", "models", "foo_add.json")))
    for where in ("input_specs", "input_specs and graph inputs"):
        p = json.loads(json.dumps(base))
        p["graph_module"]["signature"]["input_specs"].append({"user_input": {"arg": {"as_string": "hello"}}})
        if "graph" in where:
            p["graph_module"]["graph"]["inputs"].append({"as_string": "hello"})
        model = os.path.join(tmp, "string_input.json")
        json.dump(p, open(model, "w"))
        rc, err = export(model, os.path.join(tmp, "string_input"))
        check(rc == 1 and "string_input.json" in err and "error[SC0313]" in err and "at: graph_module.signature.input_specs"
              in err,
              f"a string user input in {where}: a diagnostic naming the file and path, exit {rc} "
              f"({err.strip()[-400:]})")


with tempfile.TemporaryDirectory() as tmp:
    stored_cases(tmp)
    gather_size_checks(tmp)
    byte_offsets(tmp)
    string_inputs(tmp)
sys.exit(checks.finish())
