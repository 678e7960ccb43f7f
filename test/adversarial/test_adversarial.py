#!/usr/bin/env python3
"""test_adversarial.py - compiled libraries and `shapec run` under attack: every case is
refused with a message (or runs correctly where torch would), never crashes, never writes.

usage: test_adversarial.py SHAPEC SOURCE_DIR

For each zoo model of the real-torch corpus (test/real/corpus/2.14/zoo_*/model.pt2, the
big ones restored from their thin form) and the tutorial example, exported without and
with its spec, each case runs in a child process, so that a crash is seen as a crash:
- every guard falsified once: each dim of each input at 0, 1, one past the sample, one
  past its range's end, and each pair of dims that share a symbol made unequal;
- sizes that overflow (2^62 and 2^40 on one dim) through shapec_model_output_shapes and
  shapec_model_run;
- every wrong dtype, a wrong rank, a negative size, a wrong device, NULL for the input
  array, an input's shape, an input's data, the output array and output_shapes, and
  outputs with strides that are not the compact ones; an input with strides (7 apart, in
  memory that large) must run, as the library copies it once;
and through `shapec run`: a wrong dtype, a wrong rank, a crafted .npy (sizes whose byte
count wraps, a truncated file), a missing input: non-zero exit, a message, and nothing
written to --out."""
import ctypes
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "real"))
import thin  # noqa: E402
from test_corpus import DL, NP, Tensor  # noqa: E402

sys.path.insert(0, os.path.dirname(HERE))  # test/, for tap
import tap  # noqa: E402

checks = tap.Checks(quiet=True)  # over a thousand cases: only the failures are printed
check = checks.check


# ---- one call of the C ABI in a child process ---------------------------------------------

def shape_array(shape):
    return (ctypes.c_int64 * max(1, len(shape)))(*shape)


def call(so, inputs, mode):
    """In a child: builds the tensors of `inputs` (dicts: shape, dtype, and optionally
    data=False (NULL data), shape_null, strides, device) and calls the library.  mode
    'shapes' calls output_shapes only; 'run' both; 'null-inputs', 'null-outputs',
    'null-shapes' pass NULL there.  Returns (rc, message)."""
    lib = ctypes.CDLL(so)
    lib.shapec_model_output_dtype.restype = ctypes.c_int
    keep = []
    ts = []
    for spec in inputs:
        code, bits = DL[spec["dtype"]]
        shape = spec["shape"]
        numel = int(np.prod(shape)) if shape else 1
        small = 0 <= numel <= (1 << 24)
        if "strides" in spec and small:  # the memory the strides address, as a DLPack caller provides
            numel = 1 + sum((n - 1) * s for n, s in zip(shape, spec["strides"]) if n > 0)
        arr = np.zeros(max(1, numel if small else 1), dtype=np.float64 if bits == 64 else np.float32)
        keep.append(arr)
        sa = shape_array(shape)
        keep.append(sa)
        t = Tensor(None if spec.get("data") is False else arr.ctypes.data, spec.get("device", 1), 0, len(shape), code,
                   bits, 1, None if spec.get("shape_null") else ctypes.cast(sa, ctypes.POINTER(ctypes.c_int64)),
                   None, 0)
        if "strides" in spec:
            st = shape_array(spec["strides"])
            keep.append(st)
            t.strides = ctypes.cast(st, ctypes.c_void_p)
        ts.append(t)
    ins = (Tensor * max(1, len(ts)))(*ts)
    n_out = lib.shapec_model_num_outputs()
    err = ctypes.create_string_buffer(1024)
    shapes = [(ctypes.c_int64 * 16)() for _ in range(n_out)]
    ptrs = (ctypes.POINTER(ctypes.c_int64) * max(1, n_out))(*[ctypes.cast(x, ctypes.POINTER(ctypes.c_int64))
                                                              for x in shapes])
    rc = lib.shapec_model_output_shapes(None if mode == "null-inputs" else ins,
                                        None if mode == "null-shapes" else ptrs, err, 1024)
    if rc or mode in ("shapes", "null-shapes"):
        return rc, err.value.decode(errors="replace")
    outs = []
    for i in range(n_out):
        packed = lib.shapec_model_output_dtype(i)
        shape = list(shapes[i][:lib.shapec_model_output_ndim(i)])
        numel = int(np.prod(shape)) if shape else 1
        if numel > (1 << 26):
            return -1, "output too big to allocate in the test"
        arr = np.zeros(shape, dtype=NP[(packed >> 8, packed & 255)])
        keep.append(arr)
        sa = shape_array(shape)
        keep.append(sa)
        out = Tensor(arr.ctypes.data, 1, 0, len(shape), packed >> 8, packed & 255, 1,
                     ctypes.cast(sa, ctypes.POINTER(ctypes.c_int64)), None, 0)
        if mode == "strided-outputs" and numel > 1:  # reversed strides: not the compact layout
            st = shape_array([1] * len(shape))
            keep.append(st)
            out.strides = ctypes.cast(st, ctypes.c_void_p)
        outs.append(out)
    touts = (Tensor * max(1, n_out))(*outs)
    rc = lib.shapec_model_run(ins, None if mode == "null-outputs" else touts, err, 1024)
    return rc, err.value.decode(errors="replace")


def child(so, inputs, mode, conn):
    try:
        conn.send(call(so, inputs, mode))
    except Exception as e:  # noqa: BLE001
        conn.send((-2, f"{type(e).__name__}: {e}"))


def in_child(so, inputs, mode):
    """(rc, message), or ('crash', signal) when the child died."""
    parent, kid = multiprocessing.Pipe()
    p = multiprocessing.Process(target=child, args=(so, inputs, mode, kid))
    p.start()
    p.join(120)
    if p.is_alive():
        p.kill()
        return "crash", "timeout"
    if p.exitcode != 0:
        return "crash", f"exit code {p.exitcode}"
    return parent.recv()


# ---- the cases ----------------------------------------------------------------------------

def user_inputs(report):
    return [i for i in report["inputs"] if i["kind"] == "user_input" and i.get("dtype")]


def sample(report):
    return [{"shape": list(i["sample_shape"]), "dtype": i["dtype"]} for i in user_inputs(report)]


def refused_or_ran(name, res, must_refuse=False):
    rc, msg = res
    if rc == "crash":
        check(False, f"{name}: the library crashed ({msg})")
    elif rc == -2:
        check(False, f"{name}: the test's own call failed: {msg}")
    elif rc == 0:
        check(not must_refuse, f"{name}: must be refused, ran")
    else:
        check(bool(msg.strip()), f"{name}: refused (code {rc}) without a message")


def attack_library(label, so, report):
    base = sample(report)
    ranges = report.get("range_constraints", {})
    rc, msg = in_child(so, base, "run")
    check(rc == 0, f"{label}: the sample runs ({msg})")
    for i, inp in enumerate(user_inputs(report)):
        for d, size in enumerate(inp["shape"] or []):
            tries = {0, 1, base[i]["shape"][d] + 1}
            if isinstance(size, str) and size in ranges and ranges[size]["max"] is not None:
                tries.add(ranges[size]["max"] + 1)
            for v in sorted(tries):
                args = json.loads(json.dumps(base))
                args[i]["shape"][d] = v
                refused_or_ran(f"{label}: {inp['name']}.size()[{d}] = {v}", in_child(so, args, "run"))
            for v in (1 << 40, 1 << 62):  # no data behind these: output_shapes only, then run must refuse or overflow
                args = json.loads(json.dumps(base))
                args[i]["shape"][d] = v
                refused_or_ran(f"{label}: {inp['name']}.size()[{d}] = 2^{v.bit_length() - 1} (output_shapes)",
                               in_child(so, args, "shapes"), must_refuse=v == 1 << 62)
        # dims that share a symbol, made unequal
        syms = {}
        for j, other in enumerate(user_inputs(report)):
            for e, size in enumerate(other["shape"] or []):
                if isinstance(size, str):
                    syms.setdefault(size, []).append((j, e))
        for sym, sites in syms.items():
            if len(sites) > 1:
                args = json.loads(json.dumps(base))
                j, e = sites[-1]
                args[j]["shape"][e] += 1
                refused_or_ran(f"{label}: {sym} broken between its dims", in_child(so, args, "run"), must_refuse=True)
        for dtype in ("float64", "int64", "int32", "bool", "float32"):
            if dtype == inp["dtype"]:
                continue
            args = json.loads(json.dumps(base))
            args[i]["dtype"] = dtype
            refused_or_ran(f"{label}: {inp['name']} as {dtype}", in_child(so, args, "run"), must_refuse=True)
        for what, change in (("one more dim", lambda a: a["shape"].append(1)),
                             ("one dim less", lambda a: a["shape"].pop() if a["shape"] else a["shape"].append(2)),
                             ("a negative size", lambda a: a["shape"].__setitem__(0, -1) if a["shape"] else None),
                             ("no data", lambda a: a.__setitem__("data", False)),
                             ("no shape array", lambda a: a.__setitem__("shape_null", True)),
                             ("on device 2", lambda a: a.__setitem__("device", 2)),
                             ("strided", lambda a: a.__setitem__("strides", [7] * len(a["shape"])))):
            args = json.loads(json.dumps(base))
            change(args[i])
            if what in ("a negative size", "strided", "no shape array", "no data") and not base[i]["shape"]:
                continue
            if what == "strided" and int(np.prod(base[i]["shape"])) <= 1:
                continue
            if what == "no data" and int(np.prod(base[i]["shape"])) == 0:
                continue
            # a strided input is read (copied once); everything else here is refused
            refused_or_ran(f"{label}: {inp['name']} with {what}", in_child(so, args, "run"), must_refuse=what != "strided")
    if base:  # every zoo model's outputs have several elements: reversed strides are not compact
        refused_or_ran(f"{label}: strided outputs", in_child(so, base, "strided-outputs"), must_refuse=True)
    for mode in ("null-inputs", "null-outputs", "null-shapes"):
        if mode == "null-inputs" and not base:
            continue
        refused_or_ran(f"{label}: {mode}", in_child(so, base, mode), must_refuse=True)


def attack_run(label, shapec, so, report, tmp):
    """`shapec run` with bad files: non-zero exit, a message, nothing in --out."""
    inputs = user_inputs(report)
    if not inputs:
        return
    paths = {}
    for inp in inputs:
        paths[inp["name"]] = os.path.join(tmp, f"in_{inp['name']}.npy")
        np.save(paths[inp["name"]], np.zeros(inp["sample_shape"], dtype=np.float32 if inp["dtype"] == "float32"
                                             else np.int64))
    first = inputs[0]["name"]
    crafted = {}
    crafted["float64"] = np.zeros(inputs[0]["sample_shape"], dtype=np.float64)
    crafted["rank"] = np.zeros(list(inputs[0]["sample_shape"]) + [2], dtype=np.float32)
    for what, arr in crafted.items():
        bad = os.path.join(tmp, f"bad_{what}.npy")
        np.save(bad, arr)
        check_run(label, shapec, so, paths, first, bad, what, tmp)
    wrap = os.path.join(tmp, "bad_wrap.npy")
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4611686018427387904), }"
    with open(wrap, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + bytes([len(header) + 1, 0]) + header.encode() + b"\n" + b"\0" * 64)
    check_run(label, shapec, so, paths, first, wrap, "a .npy whose byte count wraps", tmp)
    trunc = os.path.join(tmp, "bad_trunc.npy")
    with open(paths[first], "rb") as f:
        data = f.read()
    with open(trunc, "wb") as f:
        f.write(data[:len(data) - 3])
    if len(data) - 3 > 128:
        check_run(label, shapec, so, paths, first, trunc, "a truncated .npy", tmp)
    out = os.path.join(tmp, "out_missing")
    args = [a for n, p in list(paths.items())[1:] for a in ("--input", f"{n}={p}")]
    r = subprocess.run([shapec, "run", so, "--out", out, *args], capture_output=True, text=True)
    check(r.returncode != 0 and r.stderr.strip() and not os.path.exists(out),
          f"{label}: shapec run without input '{first}' is refused ({r.stderr.strip()[:120]})")


def check_run(label, shapec, so, paths, first, bad, what, tmp):
    out = os.path.join(tmp, "out_" + os.path.basename(bad))
    args = [a for n, p in paths.items() for a in ("--input", f"{n}={bad if n == first else p}")]
    r = subprocess.run([shapec, "run", so, "--out", out, *args], capture_output=True, text=True)
    crashed = r.returncode < 0 or r.returncode > 100
    check(not crashed and r.returncode != 0 and r.stderr.strip() and not os.path.exists(out),
          f"{label}: shapec run with {what} is refused with a message, nothing written "
          f"(exit {r.returncode}: {r.stderr.strip()[:160]})")


def attack_declared_dtypes(shapec, src, tmp):
    """A program that declares another dtype than its operator produces (max-pool indices
    as float32) is refused (SC0319) before any code is built: the library would size the
    buffer from the declared dtype and the kernel write int64 past it."""
    model = json.load(open(os.path.join(src, "test", "golden", "models", "conv_pool.json")))
    model["graph_module"]["graph"]["tensor_values"]["getitem_1"]["dtype"] = 7
    path = os.path.join(tmp, "conv_pool_float_indices.json")
    with open(path, "w") as f:
        json.dump(model, f)
    out = os.path.join(tmp, "out_dtype")
    r = subprocess.run([shapec, "export", path, "-o", out, "-q"], capture_output=True, text=True)
    check(r.returncode == 1 and "SC0319" in r.stderr and "int64" in r.stderr and not os.path.exists(os.path.join(out, "model.so")),
          f"indices declared float32: refused with SC0319, nothing built ({r.stderr.strip()[:200]})")


def attack_out_of_memory(shapec, tmp):
    """Out of memory while reading a 50 MB program (address space capped at 400 MB) is
    the fatal out-of-memory error, exit 4, not a JSON syntax error.  The bulk sits in
    graph.inputs, which is parsed as one tree (graph.nodes is read one node at a time, in
    little memory).  Skipped under ASan, which needs more address space than any cap leaves."""
    if "asan" in subprocess.run(["ldd", shapec], capture_output=True, text=True).stdout:
        print("skip - out of memory: shapec is built with AddressSanitizer")
        return
    node = ('{"target": "torch.ops.aten.relu.default", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}}],'
            ' "outputs": [{"as_tensor": {"name": "r%d"}}], "metadata": {}}')
    path = os.path.join(tmp, "big.json")
    with open(path, "w") as f:
        f.write('{"graph_module": {"graph": {"inputs": [' + ", ".join(node % i for i in range(300000)) + "]}}}")
    out = os.path.join(tmp, "out_oom")
    r = subprocess.run(["bash", "-c", 'ulimit -v 400000; exec "$0" export "$1" -o "$2" -q', shapec, path, out],
                       capture_output=True, text=True)
    check(r.returncode == 4 and "out of memory" in r.stderr and not os.path.exists(os.path.join(out, "model.so")),
          f"out of memory while parsing: exit 4 with its message (exit {r.returncode}: {r.stderr.strip()[:160]})")
    os.remove(path)


def models(src, tmp):
    """(label, archive or program, spec or None) for each model attacked."""
    out = [("tutorial", os.path.join(src, "examples", "tutorial", "model.json"),
            os.path.join(src, "examples", "tutorial", "spec.json"))]
    root = os.path.join(src, "test", "real", "corpus", "2.14")
    for case in sorted(os.listdir(root)):
        if not case.startswith("zoo_"):
            continue
        path = os.path.join(root, case, "model.pt2")
        if not os.path.exists(path):
            restored = os.path.join(tmp, case + ".pt2")
            thin.restore(path + ".thin", restored)
            path = restored
        out.append((case, path, os.path.join(root, case, "spec.json")))
    return out


def main(argv):
    shapec, src = argv[1], argv[2]
    with tempfile.TemporaryDirectory(prefix="shapec-adversarial-") as tmp:
        attack_declared_dtypes(shapec, src, tmp)
        attack_out_of_memory(shapec, tmp)
        for label, model, spec in models(src, tmp):
            for mode, extra in (("own", []), ("spec", ["--dynamic", spec])):
                if mode == "own" and model.endswith(".json"):
                    continue  # the example's JSON carries no dynamism of its own
                out = os.path.join(tmp, f"{label}-{mode}")
                r = subprocess.run([shapec, "export", model, "-o", out, "-q", *extra], capture_output=True, text=True)
                check(r.returncode == 0, f"{label} ({mode}): exports ({r.stderr.strip()[:200]})")
                if r.returncode:
                    continue
                report = json.load(open(os.path.join(out, "constraints.json")))
                so = os.path.join(out, "model.so")
                attack_library(f"{label} ({mode})", so, report)
                attack_run(f"{label} ({mode})", shapec, so, report, out)
    return checks.finish(f"# {checks.count} adversarial cases, {len(checks.failures)} failed")


if __name__ == "__main__":
    multiprocessing.set_start_method("fork")
    sys.exit(main(sys.argv))
