#!/usr/bin/python3
"""The entry's checks of the caller's tensors (backends/llvm/cg_entry.c check_tensor).

A plain tensor (the device, rank and dtype the model needs, no strides, sizes whose product
fits, data) is accepted inline; anything else goes to the runtime's sc_rt_check_tensor,
which accepts compact or (for inputs) any strides and words the refusals.  So: every
refusal must carry the runtime's message (the inline check may never let through what the
call refuses, e.g. sizes whose partial product overflows before a later 0), and every
layout the call accepts must run and give the plain tensors' bits.

Models: real torch 2.14's nn.MultiheadAttention program (test/cpu/tiny_ops/mha_reads, a
[batch, 4, 8] input, two outputs), and a program whose input is a 0-d int64
(test/golden/models/constrain_for_size.json: torch.zeros(x.item())).

usage: test_entry_checks.py SHAPEC SOURCE_DIR"""
import ctypes
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
checks = tap.Checks()
check = checks.check


def tensor(keep, array=None, shape=None, strides=None, data=None, offset=0, code=2, bits=32, lanes=1, device=1,
           no_shape=False):
    """A Tensor with every field as given: by default array's (C order), its shape and no strides."""
    if shape is None:
        shape = list(array.shape)
    dims = (ctypes.c_int64 * max(1, len(shape)))(*shape)
    st = None
    if strides is not None:
        held = (ctypes.c_int64 * max(1, len(strides)))(*strides)
        keep.append(held)
        st = ctypes.cast(held, ctypes.c_void_p)
    keep += [dims, array]
    if data is None and array is not None:
        data = array.ctypes.data
    return Tensor(data, Device(device, 0), len(shape), DType(code, bits, lanes), None if no_shape else dims, st, offset)


def call(lib, ins, outs):
    """shapec_model_run's code and message."""
    err = ctypes.create_string_buffer(1024)
    rc = lib.shapec_model_run((Tensor * len(ins))(*ins), (Tensor * len(outs))(*outs), err, 1024)
    return rc, err.value.decode()


def refused(what, rc, msg, words):
    check(rc != 0 and words in msg, f"{what}: refused with '{words}' (code {rc}: {msg[:140]})")


def export(model, out):
    r = subprocess.run([shapec, "export", model, "-o", out, "-q"], capture_output=True, text=True)
    if r.returncode:
        print(r.stderr)
    return r.returncode == 0


def attention_cases(tmp):
    case = os.path.join(src, "test", "cpu", "tiny_ops", "mha_reads")
    out = os.path.join(tmp, "mha")
    if not export(os.path.join(case, "model.pt2"), out):
        check(False, "mha_reads exports")
        return
    lib = ctypes.CDLL(os.path.join(out, "model.so"))
    x = np.load(os.path.join(case, "in0_0.npy"))
    want = [np.load(os.path.join(case, f"out0_{i}.npy")) for i in range(2)]

    def outputs(keep):
        ys = [np.full(w.shape, np.nan, np.float32) for w in want]
        return ys, [tensor(keep, y) for y in ys]

    keep = []
    ys, outs = outputs(keep)
    rc, msg = call(lib, [tensor(keep, x)], outs)
    check(rc == 0 and all(np.abs(y - w).max() <= 1e-5 * max(1.0, np.abs(w).max()) for y, w in zip(ys, want)),
          f"plain tensors run, within 1e-5 of torch 2.14 ({msg})")
    plain = [y.copy() for y in ys]

    def same_bits(what, ins, outs_ys=None):
        keep2 = []
        ys2, outs2 = outs_ys if outs_ys else outputs(keep2)
        rc, msg = call(lib, ins, outs2)
        check(rc == 0 and all(np.array_equal(a.view(np.uint32), b.view(np.uint32)) for a, b in zip(ys2, plain)),
              f"{what}: runs, the plain tensors' bits ({msg})")

    n, t, c = x.shape
    same_bits("compact strides given", [tensor(keep, x, strides=[t * c, c, 1])])
    padded = np.zeros(x.size + 7, np.float32)
    padded[7:] = x.ravel()
    same_bits("a byte offset", [tensor(keep, padded, shape=[n, t, c], offset=28)])
    xt = np.ascontiguousarray(x.transpose(2, 1, 0))  # x[i, j, k] at k * (t n) + j n + i
    same_bits("a strided input (copied once)", [tensor(keep, xt, shape=[n, t, c], strides=[1, n, t * n])])
    keep3 = []
    ys3 = [np.full(w.shape, np.nan, np.float32) for w in want]
    outs3 = [tensor(keep3, y, strides=[y.shape[1] * y.shape[2], y.shape[2], 1]) for y in ys3]
    same_bits("outputs with their compact strides given", [tensor(keep, x)], (ys3, outs3))

    big = 1 << 62
    for what, ins, words in (
            ("a partial product past int64 before a 0", [tensor(keep, x, shape=[3, big, 0])], "product overflows int64"),
            ("a size past int64 at the end", [tensor(keep, x, shape=[2, 4, big])], "product overflows int64"),
            ("sizes of 2^61 elements (bytes past int64)", [tensor(keep, x, shape=[1 << 61, 1, 1])], "more bytes than int64"),
            ("a negative size", [tensor(keep, x, shape=[n, -1, c])], "is negative"),
            ("a negative size beside a 0", [tensor(keep, x, shape=[0, -4, c])], "is negative"),
            ("no data", [tensor(keep, x, data=0)], "has no data"),
            ("float64", [tensor(keep, x, code=2, bits=64)], "is float64 but the model needs float32"),
            ("int32", [tensor(keep, x, code=0, bits=32)], "is int32 but the model needs float32"),
            ("two lanes", [tensor(keep, x, lanes=2)], "has 2 lanes per element but the model needs 1 (float32)"),
            ("device type 2", [tensor(keep, x, device=2)], "device type 2"),
            ("no shape array", [tensor(keep, x, no_shape=True)], "no shape array"),
            ("two dims", [tensor(keep, x, shape=[n * t, c])], "has 2 dims but the model needs 3"),
            ("four dims", [tensor(keep, x, shape=[n, t, c, 1])], "has 4 dims but the model needs 3"),
            ("strides past int64", [tensor(keep, x, strides=[big, big, 1])], "strides that reach past")):
        ys4, outs4 = outputs(keep)
        rc, msg = call(lib, ins, outs4)
        refused("input with " + what, rc, msg, words)
    for what, make, words in (
            ("float64", lambda y: tensor(keep, y, code=2, bits=64), "is float64 but the model needs float32"),
            ("no data", lambda y: tensor(keep, y, data=0), "has no data"),
            ("a transposed layout", lambda y: tensor(keep, y, strides=[1, y.shape[0], y.shape[0] * y.shape[1]]),
             "is not contiguous"),
            ("one dim less", lambda y: tensor(keep, y, shape=list(y.shape[1:])), "has 2 dims but the model needs 3")):
        ys5, outs5 = outputs(keep)
        outs5[1] = make(ys5[1])
        rc, msg = call(lib, [tensor(keep, x)], outs5)
        refused("second output with " + what, rc, msg, words)


def scalar_cases(tmp):
    out = os.path.join(tmp, "scalar")
    if not export(os.path.join(src, "test", "golden", "models", "constrain_for_size.json"), out):
        check(False, "constrain_for_size exports")
        return
    lib = ctypes.CDLL(os.path.join(out, "model.so"))
    keep = []
    n = np.array(5, np.int64)
    y = np.full(5, np.nan, np.float32)
    rc, msg = call(lib, [tensor(keep, n, code=0, bits=64)], [tensor(keep, y)])
    check(rc == 0 and np.array_equal(y, np.zeros(5, np.float32)), f"a 0-d int64 input runs: zeros(5) ({msg})")
    rc, msg = call(lib, [tensor(keep, n, code=0, bits=64, data=0)], [tensor(keep, y)])
    refused("a 0-d input with no data", rc, msg, "has no data")
    rc, msg = call(lib, [tensor(keep, n, code=2, bits=64)], [tensor(keep, y)])
    refused("a 0-d input as float64", rc, msg, "is float64 but the model needs int64")
    rc, msg = call(lib, [tensor(keep, n, shape=[1], code=0, bits=64)], [tensor(keep, y)])
    refused("a 1-d input for a 0-d one", rc, msg, "has 1 dims but the model needs 0")


with tempfile.TemporaryDirectory() as tmp:
    attention_cases(tmp)
    scalar_cases(tmp)
sys.exit(checks.finish())
