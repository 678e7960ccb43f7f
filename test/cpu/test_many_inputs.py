#!/usr/bin/python3
"""A program with many inputs: from 64 on (backends/llvm/cg_entry.c, CG_MANY_INPUTS) the
library checks and binds its inputs through tables that the runtime walks
(sc_rt_check_inputs, sc_rt_check_dims, sc_rt_bind_inputs), where a program with few inputs
has code of its own per input.  Both must answer alike: the same results and the same
refusals, word for word.

So every case runs on two builds of one program, x0 + x1 + ... (bench/many_inputs.py's chain;
every seventh input [1, L], the others [L]; an int constant k and a float constant f passed
among them): 3,000 tensor inputs (tables) and 6 (code per input).  A fault goes on
corresponding inputs (x2917 and x3; a second one on x2950 and x4), and the two messages
must be the same once those names are; the 3,000-input library must name x2917.  Each
program is built twice: with static sizes, and with every L the Dim n (3 to 100), whose first
size binds it and the others must equal it.  Also: the tables are really there (the entry of
3,000 inputs is a few instructions an input, the 6-input one calls no table), and an output
written over an input is still right.

usage: test_many_inputs.py SHAPEC SOURCE_DIR"""
import ctypes
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/, for tap
import tap  # noqa: E402

shapec, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "tools"))
sys.path.insert(0, os.path.join(src, "bench"))
from shapec_tools.model_library import Device, DType, Tensor  # noqa: E402  (the ABI's structs)
from many_inputs import chain_program  # noqa: E402

checks = tap.Checks()
check = checks.check

BIG, SMALL, DEVICE = 3000, 6, 200  # DEVICE: the emulated CUDA path's many inputs
FAULT = {BIG: 2917, SMALL: 3, DEVICE: 117}     # the input a fault is on
LATER = {BIG: 2950, SMALL: 4, DEVICE: 150}     # a second fault, on a later input
CONSTANTS = {BIG: 1500, SMALL: 2}  # k and f are passed before this tensor input (CPU only)
K, F = 3, 0.5


def shape_of(i, size=4):
    return [1, size] if i % 7 == 2 else [size]


def build(n, dynamic, tmp, emit_llvm=False, cuda=False):
    """Exports the chain of n inputs (for the CPU, or the CPU and the emulated CUDA path,
    which takes tensors only); returns the library's folder, or None."""
    d = chain_program(n, shape_of)
    g = d["graph_module"]
    if not cuda:
        at = CONSTANTS[n]
        g["signature"]["input_specs"][at:at] = [{"constant_input": {"name": "k", "value": {"as_int": K}}},
                                               {"constant_input": {"name": "f", "value": {"as_float": F}}}]
        g["graph"]["inputs"][at:at] = [{"as_int": K}, {"as_float": F}]
    name = f"{'dynamic' if dynamic else 'cuda' if cuda else 'static'}{n}"
    path = os.path.join(tmp, name + ".json")
    with open(path, "w") as fp:
        fp.write(json.dumps(d))  # dumps: the C encoder (dump is pure Python, seconds here)
    cmd = [shapec, "export", path, "-o", os.path.join(tmp, name), "-q"]
    if dynamic:
        spec = {"dynamic_shapes": {f"x{i}": [None, "n"] if len(shape_of(i)) == 2 else ["n"] for i in range(n)},
                "dims": {"n": {"min": 3, "max": 100}}}
        with open(os.path.join(tmp, name + "_spec.json"), "w") as fp:
            fp.write(json.dumps(spec))
        cmd += ["--dynamic", os.path.join(tmp, name + "_spec.json")]
    if emit_llvm:
        cmd.append("--emit-llvm")
    if cuda:
        cmd += ["--target", "cpu,cuda", "--cuda-emulate"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    check(r.returncode == 0, f"{name} exports" + (f": {r.stderr[-600:]}" if r.returncode else ""))
    return os.path.join(tmp, name) if r.returncode == 0 else None


class Call:
    """The n tensors (input i filled with i + 1 plus a ramp) and the two constants, as the
    library takes them; faults edit `tensors` (ctypes Tensors, in call order) before run().
    The arrays are made once per shape and kept (never written); each call copies the Tensors."""
    made = {}

    def __init__(self, lib, n, size=4, device=1):
        self.lib, self.n, self.keep, self.device = lib, n, [], device
        self.constants_at = CONSTANTS[n] if device == 1 else n  # the CUDA path takes no scalars
        if (n, size, device) not in Call.made:
            arrays = [(np.arange(size, dtype=np.float32) * 0.25 + i + 1).reshape(shape_of(i, size)) for i in range(n)]
            tensors = []
            for i in range(n):
                if i == self.constants_at:
                    tensors += [self.scalar(np.array(K, np.int64), DType(0, 64, 1)),
                                self.scalar(np.array(F, np.float64), DType(2, 64, 1))]
                tensors.append(self.tensor(arrays[i]))
            Call.made[n, size, device] = arrays, tensors, self.keep
        arrays, tensors, _ = Call.made[n, size, device]
        self.arrays = list(arrays)
        self.tensors = [Tensor.from_buffer_copy(t) for t in tensors]
        self.keep = []
        self.out = np.full([1, size], np.nan, np.float32)
        self.out_tensor = self.tensor(self.out)

    def tensor(self, a, shape=None):
        shape = list(a.shape) if shape is None else shape
        dims = (ctypes.c_int64 * max(1, len(shape)))(*shape)
        self.keep += [a, dims]
        return Tensor(a.ctypes.data, Device(self.device, 0), len(shape), DType(2, 32, 1), dims, None, 0)

    def scalar(self, a, dtype):
        self.keep.append(a)
        return Tensor(a.ctypes.data, Device(1, 0), 0, dtype, None, None, 0)

    def at(self, i):
        """The place of tensor input i in the call."""
        return i + 2 if i >= self.constants_at else i

    def expected(self):
        return np.sum([np.broadcast_to(a, self.out.shape) for a in self.arrays], axis=0, dtype=np.float32)

    def run(self, inputs_null=False, shapes_only=False):
        err = ctypes.create_string_buffer(1024)
        ins = None if inputs_null else (Tensor * len(self.tensors))(*self.tensors)
        if shapes_only:
            dims = (ctypes.c_int64 * 2)()
            ptrs = (ctypes.POINTER(ctypes.c_int64) * 1)(ctypes.cast(dims, ctypes.POINTER(ctypes.c_int64)))
            rc = self.lib.shapec_model_output_shapes(ins, ptrs, err, 1024)
        else:
            rc = self.lib.shapec_model_run(ins, (Tensor * 1)(self.out_tensor), err, 1024)
        return rc, err.value.decode()


def faults(n):
    """(what, edit of a Call): each makes the call fail."""
    j, later = FAULT[n], LATER[n]

    def field(name, value, i=j):
        return lambda c: setattr(c.tensors[c.at(i)], name, value)

    def sizes(shape, i=j):
        def edit(c):
            dims = (ctypes.c_int64 * len(shape))(*shape)
            c.keep.append(dims)
            c.tensors[c.at(i)].shape = dims
            c.tensors[c.at(i)].ndim = len(shape)
        return edit

    def bigger(c):  # one element more, really there
        c.tensors[c.at(j)] = c.tensor(np.ones(5, np.float32))

    def strides(values):
        def edit(c):
            st = (ctypes.c_int64 * len(values))(*values)
            c.keep.append(st)
            c.tensors[c.at(j)].strides = ctypes.cast(st, ctypes.c_void_p)
        return edit

    def constant(which, value, dtype):
        def edit(c):
            a = np.array(value, dtype)
            c.keep.append(a)
            c.tensors[CONSTANTS[n] + which].data = a.ctypes.data
        return edit

    def both(c):
        field("dtype", DType(2, 64, 1), later)(c)
        bigger(c)

    return [("a wrong size", bigger), ("a wrong rank", sizes([1, 4])), ("float64", field("dtype", DType(2, 64, 1))),
            ("two lanes", field("dtype", DType(2, 32, 2))), ("device type 2", field("device", Device(2, 0))),
            ("no data", field("data", None)), ("no shape array", field("shape", None)), ("a negative size", sizes([-1])),
            ("a byte_offset that wraps", field("byte_offset", 2**64 - 4)), ("strides past int64", strides([2**61])),
            ("a wrong dtype after a wrong size (the dtype first)", both), ("k = 4", constant(0, 4, np.int64)),
            ("f = 0.25", constant(1, 0.25, np.float64))]


def normalized(msg, n):
    """The message with the faulty inputs' names and pointers made the same for both builds."""
    msg = re.sub(rf"\bx{FAULT[n]}\b", "X", msg)
    msg = re.sub(rf"\bx{LATER[n]}\b", "Y", msg)
    return re.sub(r"0x[0-9a-f]+", "PTR", msg)


def cuda_cases(libs):
    """The emulated CUDA path: its entry checks the tensors as device tensors (compact ones
    only) through the same tables."""
    make = lambda lib, n: Call(lib, n, device=2)  # noqa: E731
    for n, lib in libs.items():
        runs_right(lib, n, "the CUDA path", make(lib, n))
    for what in ("a wrong size", "float64", "a wrong dtype after a wrong size (the dtype first)"):
        same_answers(libs, f"the CUDA path, {what}", make, what)
    same_answers(libs, "the CUDA path, a CPU tensor", make, lambda c: setattr(c.tensors[c.at(FAULT[c.n])], "device",
                                                                              Device(1, 0)))
    def strided(c):
        st = (ctypes.c_int64 * 1)(2)
        c.keep.append(st)
        c.tensors[c.at(FAULT[c.n])] = c.tensor(np.zeros(8, np.float32), [4])
        c.tensors[c.at(FAULT[c.n])].strides = ctypes.cast(st, ctypes.c_void_p)
    msg = same_answers(libs, "the CUDA path, a strided input", make, strided)
    check("not contiguous" in msg, f"  ... the CUDA path takes compact tensors only: {msg[:100]}")


def same_answers(libs, what, make, fault=None):
    """Runs the call on both builds, with faults(n)'s `fault` on each; both must refuse it
    with the same code and words.  Returns the big build's message."""
    answers = {}
    for n, lib in libs.items():
        c = make(lib, n)
        if callable(fault):
            fault(c)
        elif fault:
            dict(faults(n))[fault](c)
        answers[n] = c.run()
    (rc_big, msg_big), (rc_small, msg_small) = [answers[n] for n in libs]
    big = max(libs)
    check(rc_big != 0 and rc_big == rc_small and normalized(msg_big, big) == normalized(msg_small, SMALL),
          f"{what}: refused alike (code {rc_big}: {msg_big[:160]} | code {rc_small}: {msg_small[:160]})")
    return msg_big


def runs_right(lib, n, what, c=None):
    c = c or Call(lib, n)
    rc, msg = c.run()
    check(rc == 0 and np.array_equal(c.out, c.expected()), f"{what} ({n} inputs): right result (code {rc} {msg[:100]})")


def static_cases(libs):
    make = lambda lib, n: Call(lib, n)  # noqa: E731
    for n, lib in libs.items():
        runs_right(lib, n, "plain tensors")
        c = Call(lib, n)  # input FAULT as every other element of a buffer: copied compact
        wide = np.zeros(8, np.float32)
        wide[::2] = c.arrays[FAULT[n]]
        c.tensors[c.at(FAULT[n])] = c.tensor(wide, [4])
        st = (ctypes.c_int64 * 1)(2)
        c.keep.append(st)
        c.tensors[c.at(FAULT[n])].strides = ctypes.cast(st, ctypes.c_void_p)
        runs_right(lib, n, "a strided input", c)
    for what, _ in faults(BIG):
        msg = same_answers(libs, what, make, what)
        if what == "a wrong size":
            check(msg == "Guard failed: x2917.size()[0] == 4 (x2917.size()[0] = 5 but the model needs 4)",
                  f"the 3,000-input library names x2917: {msg}")
    for n, lib in libs.items():  # output_shapes checks the same, with the same words
        c = Call(lib, n)
        dict(faults(n))["a wrong size"](c)
        rc, msg = c.run(shapes_only=True)
        check(rc == 1 and f"x{FAULT[n]}.size()[0] = 5" in msg, f"output_shapes ({n} inputs) refuses too: {msg[:120]}")
        rc, msg = Call(lib, n).run(inputs_null=True)
        check(rc == 2 and msg.startswith("inputs is NULL"), f"inputs NULL ({n} inputs): {msg[:80]}")


def metadata(lib, n):
    lib.shapec_model_input_name.restype = ctypes.c_char_p
    k_at, x_at = CONSTANTS[n], FAULT[n] + 2
    names = [lib.shapec_model_input_name(i) for i in (0, k_at, k_at + 1, x_at, n + 1, n + 2, -1)]
    check(lib.shapec_model_num_inputs() == n + 2 and names == [b"x0", b"k", b"f", f"x{FAULT[n]}".encode(),
                                                                f"x{n - 1}".encode(), None, None],
          f"{n} inputs: their count and names ({names[:5]})")
    got = [(lib.shapec_model_input_ndim(i), lib.shapec_model_input_dtype(i)) for i in (k_at, k_at + 1, x_at, n + 2)]
    check(got == [(0, 64), (0, 2 << 8 | 64), (1, 2 << 8 | 32), (-1, -1)], f"{n} inputs: ranks and dtypes {got}")


def dynamic_cases(libs):
    def make(size, first=None):
        def call(lib, n):
            c = Call(lib, n, size)
            if first is not None:
                c.arrays[0] = np.ones(first, np.float32)
                c.tensors[c.at(0)] = c.tensor(c.arrays[0])
            return c
        return call

    for n, lib in libs.items():
        runs_right(lib, n, "n = 7", make(7)(lib, n))
        # the output written over the last input, one element on: computed aside, then copied
        c = make(100)(lib, n)
        last = n - 1
        room = np.zeros(101, np.float32)
        room[:100] = c.arrays[last]
        c.arrays[last] = room[:100].copy()
        c.tensors[c.at(last)] = c.tensor(room, [100])
        want = c.expected()
        c.out_tensor = Tensor(room.ctypes.data + 4, Device(1, 0), 2, DType(2, 32, 1), c.out_tensor.shape, None, 0)
        rc, msg = c.run()
        check(rc == 0 and np.array_equal(room[1:].reshape(1, 100), want),
              f"an output over an input ({n} inputs): right result (code {rc} {msg[:80]})")
    msg = same_answers(libs, "n = 101 on x0", make(4, 101))
    check("x0.size()[0] <= 100" in msg, f"  ... in the range's words: {msg[:120]}")
    msg = same_answers(libs, "n = 2 on x0", make(4, 2))
    check("x0.size()[0] >= 3" in msg, f"  ... in the range's words: {msg[:120]}")
    msg = same_answers(libs, "a size unlike x0's", make(4), "a wrong size")
    check(msg.startswith("Guard failed: x2917.size()[0] == x0.size()[0] (x2917.size()[0] = 5 but the model needs"),
          f"  ... naming x2917 and x0: {msg[:160]}")
    same_answers(libs, "a size unlike x0's, a wrong dtype later", make(4), "a wrong dtype after a wrong size (the dtype first)")


def entry_size(folder, n):
    """Instructions of the run and prepare functions in the library's IR."""
    counts, fn = {}, None
    with open(os.path.join(folder, "model.ll")) as fp:
        for line in fp:
            m = re.match(r"define [^@]*@(\w+)\(", line)
            if m:
                fn = m.group(1)
                counts[fn] = 0
            elif line == "}\n":
                fn = None
            elif fn and line.startswith("  "):
                counts[fn] += 1
    return counts.get("shapec_model_run", 0), counts.get("sc_prepare_cpu", 0)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        static = {n: build(n, False, tmp, emit_llvm=True) for n in (BIG, SMALL)}
        dynamic = {n: build(n, True, tmp) for n in (BIG, SMALL)}
        cuda = {n: build(n, False, tmp, cuda=True) for n in (DEVICE, SMALL)}
        if None in static.values() or None in dynamic.values() or None in cuda.values():
            return checks.finish()
        run_big, prepare_big = entry_size(static[BIG], BIG)
        check(0 < run_big < 8 * BIG and 0 < prepare_big < 200,
              f"3,000 inputs: run is {run_big} instructions, prepare {prepare_big} (tables, no code per input)")
        with open(os.path.join(static[SMALL], "model.ll")) as fp:
            small_ir = fp.read()
        check("sc_rt_check_tensor" in small_ir and "sc_rt_check_inputs" not in small_ir,
              "6 inputs: each checked inline, no table")
        libs = {n: ctypes.CDLL(os.path.join(folder, "model.so")) for n, folder in static.items()}
        for n, lib in libs.items():
            metadata(lib, n)
        static_cases(libs)
        dynamic_cases({n: ctypes.CDLL(os.path.join(folder, "model.so")) for n, folder in dynamic.items()})
        cuda_cases({n: ctypes.CDLL(os.path.join(folder, "model.so")) for n, folder in cuda.items()})
    return checks.finish()


sys.exit(main())
