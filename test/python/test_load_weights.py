#!/usr/bin/python3
"""test_load_weights.py - weights replaced at load from a safetensors file, without a new
export (shapec_model_load_weights, Model.load_weights, `shapec run --weights`).

Programs torch 2.14.1 exported (test/real/corpus/2.14, test/real/half/bfloat16) are
exported with --external-weights; safetensors files written here with new weights must
give what NumPy computes from those weights:
- zoo_mlp (Linear 32-64, ReLU, Linear 64-10): the list of weights (names, kinds, dtypes,
  shapes), new weights through the Python package, the C ABI and `shapec run`, extra
  tensors ignored, any key order, escaped names;
- batchnorm_eval: parameters alone (the running statistics, buffers, keep the exported
  values), then with the statistics too;
- op_linear in bfloat16: bfloat16 tensors widened as the library computes them;
- bfloat16 GPT-2 (torch 2.14's export) with a checkpoint the safetensors package wrote in
  the chroot (every weight halved; test/python/load_weights/gen.py): torch's logits with
  those weights (ep.module()), within a bfloat16 ulp of the logits' scale;
- refusals, each a message naming the file and the tensor and nothing changed: a missing
  parameter, a wrong dtype, a wrong shape, a truncated or malformed file, a second load
  after the first run, a library with embedded weights.

usage: test_load_weights.py SHAPEC SOURCE_DIR    (Debian's /usr/bin/python3)"""
import itertools
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/, for tap
import tap  # noqa: E402

shapec_bin, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
sys.path.insert(0, os.path.join(src, "python"))
import shapec  # noqa: E402

ST_DTYPE = {"float32": "F32", "bfloat16": "BF16", "float16": "F16", "int64": "I64"}


def bf16_bits(x):
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_values(bits):
    return (np.asarray(bits, np.uint16).astype(np.uint32) << 16).view(np.float32)


def write_safetensors(path, tensors, order=None, metadata=None, escape_names=False):
    """tensors: {name: (safetensors dtype, ndarray)}; the JSON in `order` (default sorted)."""
    header, blobs, at = {}, [], 0
    if metadata is not None:
        header["__metadata__"] = metadata
    for name in order or sorted(tensors):
        dtype, arr = tensors[name]
        raw = np.ascontiguousarray(arr).tobytes()
        header[name] = {"dtype": dtype, "shape": list(arr.shape), "data_offsets": [at, at + len(raw)]}
        blobs.append(raw)
        at += len(raw)
    text = json.dumps(header, ensure_ascii=True)
    if escape_names:  # every name's letters as \\u escapes: the reader decodes them
        for name in tensors:
            text = text.replace(json.dumps(name), '"' + "".join(f"\\u{ord(c):04x}" for c in name) + '"')
    data = text.encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(data)) + data + b"".join(blobs))


def export(tmp, case_dir, name, external=True):
    out = os.path.join(tmp, name)
    args = [shapec_bin, "export", os.path.join(case_dir, "model.pt2"), "-o", out, "-q"]
    if os.path.exists(os.path.join(case_dir, "spec.json")):
        args += ["--dynamic", os.path.join(case_dir, "spec.json")]
    r = subprocess.run(args + (["--external-weights"] if external else []), capture_output=True, text=True, timeout=600)
    return out if r.returncode == 0 else r.stderr


COPIES = itertools.count()


def fresh(lib_path):
    """A copy of the library beside it (model.weights stays its side file): dlopen hands
    out one instance per path, and a library's weights change only before its first run."""
    copy = os.path.join(os.path.dirname(lib_path), f"copy{next(COPIES)}.so")
    shutil.copy(lib_path, copy)
    return copy


def refused(checks, lib_path, path, what, *needles):
    """A fresh copy of the library refuses `path` with a message holding needles, and then
    still computes with its exported weights."""
    m = shapec.load(fresh(lib_path))
    try:
        m.load_weights(path)
        checks.check(False, f"{what}: refused (it was accepted)")
        return m
    except shapec.ShapecError as e:
        msg = str(e)
        checks.check(all(n in msg for n in needles), f"{what}: refused naming {needles} ({msg[:300]})")
    return m


def mlp_reference(w, x):
    h = np.maximum(x.astype(np.float64) @ w["0.weight"].T.astype(np.float64) + w["0.bias"], 0)
    return h @ w["2.weight"].T.astype(np.float64) + w["2.bias"]


def test_mlp(checks, tmp):
    case = os.path.join(src, "test", "real", "corpus", "2.14", "zoo_mlp")
    out = export(tmp, case, "mlp")
    if not isinstance(out, str) or not os.path.isdir(out):
        checks.check(False, f"zoo_mlp exports with --external-weights ({out[-300:]})")
        return
    lib = os.path.join(out, "model.so")
    m = shapec.load(lib)
    listed = {w.name: w for w in m.weights}
    want = {"0.weight": (64, 32), "0.bias": (64,), "2.weight": (10, 64), "2.bias": (10,)}
    checks.check({n: w.shape for n, w in listed.items()} == want and
                 all(w.kind == "parameter" and w.dtype == "float32" for w in listed.values()),
                 f"Model.weights lists the four parameters with torch's dtypes and shapes ({list(listed.values())})")
    rng = np.random.default_rng(7)
    new = {n: rng.standard_normal(s).astype(np.float32) for n, s in want.items()}
    x = rng.standard_normal((5, 32)).astype(np.float32)
    exported = m(x)
    path = os.path.join(tmp, "mlp.safetensors")
    extra = {"unused.weight": ("F32", np.ones((3, 3), np.float32))}
    write_safetensors(path, {**{n: ("F32", a) for n, a in new.items()}, **extra}, metadata={"format": "pt"})
    m2 = shapec.load(fresh(lib), weights=path)
    y = m2(x)
    ref = mlp_reference(new, x)
    checks.check(np.allclose(y, ref, rtol=1e-5, atol=1e-5) and not np.allclose(y, exported, atol=1e-3),
                 f"new weights (extra tensors and __metadata__ ignored): NumPy's result "
                 f"(largest difference {np.abs(y - ref).max():.2g})")
    checks.check(np.allclose(m2(x[:1]), ref[:1], rtol=1e-5, atol=1e-5), "and at another batch size")
    # any key order, names written as \u escapes
    path2 = os.path.join(tmp, "mlp_escaped.safetensors")
    write_safetensors(path2, {n: ("F32", a) for n, a in new.items()}, order=["2.bias", "0.weight", "2.weight", "0.bias"],
                      escape_names=True)
    y2 = shapec.load(fresh(lib), weights=path2)(x)
    checks.check(np.array_equal(y2, y), "keys in another order, names as \\u escapes: the same result")
    # after the first run: refused, the weights in use unchanged
    try:
        m2.load_weights(path2)
        checks.check(False, "a second load after the first run is refused (it was accepted)")
    except shapec.ShapecError as e:
        checks.check("before the library's first run" in str(e) and np.array_equal(m2(x), y),
                     f"a load after the first run is refused, the weights in use kept ({str(e)[:200]})")
    # the C ABI through `shapec run --weights`
    npy = os.path.join(tmp, "x.npy")
    np.save(npy, x)
    r = subprocess.run([shapec_bin, "run", fresh(lib), "--input", f"input={npy}", "--weights", path, "--out",
                        os.path.join(tmp, "run_mlp")], capture_output=True, text=True, timeout=300)
    got = np.load(os.path.join(tmp, "run_mlp", "output_0.npy")) if r.returncode == 0 else None
    checks.check(got is not None and np.array_equal(got, y), f"shapec run --weights: the same result ({r.stderr[-300:]})")
    r = subprocess.run([shapec_bin, "run", lib, "--input", f"input={npy}", "--weights", os.path.join(tmp, "none.safetensors"),
                        "--out", os.path.join(tmp, "run_none")], capture_output=True, text=True, timeout=300)
    checks.check(r.returncode != 0 and "none.safetensors" in r.stderr and "Traceback" not in r.stderr,
                 f"shapec run --weights with a missing file: an error naming it ({r.stderr.strip()[-200:]})")
    # refusals: each leaves the exported weights in use
    bad = os.path.join(tmp, "bad.safetensors")
    write_safetensors(bad, {n: ("F32", a) for n, a in new.items() if n != "2.bias"})
    m3 = refused(checks, lib, bad, "a file without parameter 2.bias", "bad.safetensors", "'2.bias'", "lacks 1")
    checks.check(np.array_equal(m3(x), exported), "after a refused file the exported weights compute")
    write_safetensors(bad, {n: ("F32", a) if n != "0.weight" else ("F16", a.astype(np.float16)) for n, a in new.items()})
    refused(checks, lib, bad, "0.weight in float16", "'0.weight' is float16", "as float32")
    write_safetensors(bad, {n: ("F32", a) if n != "2.weight" else ("F32", a[:, :32]) for n, a in new.items()})
    refused(checks, lib, bad, "2.weight of another shape", "'2.weight' has shape [10, 32]", "takes [10, 64]")
    raw = open(path, "rb").read()
    with open(bad, "wb") as f:
        f.write(raw[:-40])
    refused(checks, lib, bad, "a truncated file", "bad.safetensors", "truncated")
    with open(bad, "wb") as f:
        f.write(struct.pack("<Q", 11) + b'{"a": [1, }')
    refused(checks, lib, bad, "a malformed header", "malformed", "byte")
    with open(bad, "wb") as f:
        f.write(struct.pack("<Q", 1 << 40))
    refused(checks, lib, bad, "a header longer than the file", "not a safetensors file")
    refused(checks, lib, os.path.join(tmp, "missing.safetensors"), "a missing file", "missing.safetensors",
            "No such file")
    embedded = export(tmp, case, "mlp_embedded", external=False)
    if os.path.isdir(embedded):
        refused(checks, os.path.join(embedded, "model.so"), path, "a library with embedded weights",
                "--external-weights")


def test_batch_norm(checks, tmp):
    case = os.path.join(src, "test", "real", "corpus", "2.14", "batchnorm_eval")
    out = export(tmp, case, "bn")
    if not os.path.isdir(out):
        checks.check(False, f"batchnorm_eval exports with --external-weights ({out[-300:]})")
        return
    lib = os.path.join(out, "model.so")
    m = shapec.load(lib)
    kinds = {w.name: w.kind for w in m.weights}
    checks.check(kinds.get("bn.weight") == "parameter" and kinds.get("bn.running_mean") == "buffer" and
                 kinds.get("bn.running_var") == "buffer", f"batch norm: parameters and buffers listed ({kinds})")
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 5, 5)).astype(np.float32)
    w, b = rng.standard_normal(3).astype(np.float32), rng.standard_normal(3).astype(np.float32)
    path = os.path.join(tmp, "bn.safetensors")
    write_safetensors(path, {"bn.weight": ("F32", w), "bn.bias": ("F32", b)})
    y = shapec.load(fresh(lib), weights=path)(x)
    # a fresh BatchNorm2d's statistics as exported: mean 0, var 1
    ref = x / np.sqrt(1 + 1e-5) * w[None, :, None, None] + b[None, :, None, None]
    checks.check(np.allclose(y, ref, rtol=1e-5, atol=1e-5),
                 f"parameters alone: the buffers keep the exported statistics (largest difference {np.abs(y - ref).max():.2g})")
    mean, var = rng.standard_normal(3).astype(np.float32), rng.uniform(0.5, 2, 3).astype(np.float32)
    write_safetensors(path, {"bn.weight": ("F32", w), "bn.bias": ("F32", b), "bn.running_mean": ("F32", mean),
                             "bn.running_var": ("F32", var), "bn.num_batches_tracked": ("I64", np.array(5, np.int64))})
    y = shapec.load(fresh(lib), weights=path)(x)
    ref = (x - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5) * w[None, :, None, None] \
        + b[None, :, None, None]
    checks.check(np.allclose(y, ref, rtol=1e-5, atol=1e-5),
                 f"with the statistics: they replace the exported ones (largest difference {np.abs(y - ref).max():.2g})")


def test_bfloat16(checks, tmp):
    case = os.path.join(src, "test", "real", "half", "bfloat16", "op_linear")
    out = export(tmp, case, "linear_bf16")
    if not os.path.isdir(out):
        checks.check(False, f"bfloat16 op_linear exports with --external-weights ({out[-300:]})")
        return
    lib = os.path.join(out, "model.so")
    listed = {w.name: (w.dtype, w.shape) for w in shapec.load(lib).weights}
    checks.check(listed == {"l.weight": ("bfloat16", (40, 48)), "l.bias": ("bfloat16", (40,))},
                 f"a bfloat16 model lists its weights as bfloat16 (as torch stored them) ({listed})")
    rng = np.random.default_rng(5)
    wb, bb = bf16_bits(rng.standard_normal((40, 48))), bf16_bits(rng.standard_normal(40))
    path = os.path.join(tmp, "linear.safetensors")
    write_safetensors(path, {"l.weight": ("BF16", wb), "l.bias": ("BF16", bb)})
    xb = bf16_bits(rng.standard_normal((6, 48)))
    m = shapec.load(fresh(lib), weights=path)
    got = None
    try:
        import ml_dtypes  # noqa: F401
        got = np.asarray(m(xb.view(ml_dtypes.bfloat16)), np.float32)
    except ImportError:
        pass
    if got is None:  # through the C ABI: shapec run with the bits as int16
        npy = os.path.join(tmp, "xb.npy")
        np.save(npy, xb.view(np.int16))
        r = subprocess.run([shapec_bin, "run", lib, "--input", f"x={npy}", "--weights", path, "--out",
                            os.path.join(tmp, "run_bf16")], capture_output=True, text=True, timeout=300)
        got = np.load(os.path.join(tmp, "run_bf16", "output_0.npy")) if r.returncode == 0 else None
    ref = bf16_values(xb).astype(np.float64) @ bf16_values(wb).T.astype(np.float64) + bf16_values(bb)
    ok = got is not None and np.allclose(got, ref, rtol=1.6e-2, atol=1e-5)
    checks.check(ok, "bfloat16 weights from the file: NumPy's result within bfloat16's tolerance"
                 + (f" (largest difference {np.abs(got - ref).max():.2g})" if got is not None else ""))
    write_safetensors(path, {"l.weight": ("F32", bf16_values(wb)), "l.bias": ("BF16", bb)})
    refused(checks, lib, path, "float32 weights for a bfloat16 model", "'l.weight' is float32", "as bfloat16")


def test_real_checkpoint(checks, tmp):
    here = os.path.join(src, "test", "python", "load_weights")
    answers = json.load(open(os.path.join(here, "answers.json")))
    out = export(tmp, os.path.join(src, "test", "real", "half", "bfloat16", "hf_gpt2"), "gpt2")
    if not os.path.isdir(out):
        checks.check(False, f"bfloat16 GPT-2 exports with --external-weights ({out[-300:]})")
        return
    lib = os.path.join(out, "model.so")
    weights = shapec.load(lib).weights
    listed = sorted(w.name for w in weights if w.kind != "constant")  # lifted constants are no state_dict's
    checks.check(listed == answers["all_names"], f"GPT-2's parameters and buffers listed under torch's state_dict names "
                 f"({len(listed)}, and {len(weights) - len(listed)} tensor constants that keep their exported values)")
    ids, mask = np.array(answers["ids"], np.int64), np.array(answers["mask"], np.int64)
    want = np.array(answers["logits"], np.float32).reshape(answers["shape"])
    m = shapec.load(fresh(lib), weights=os.path.join(here, "gpt2_halved.safetensors"))
    got = m(ids, mask)
    got = np.asarray(got[0] if isinstance(got, tuple) else got, np.float32)
    exported = shapec.load(lib)(ids, mask)
    exported = np.asarray(exported[0] if isinstance(exported, tuple) else exported, np.float32)
    scale = float(np.abs(want).max())
    checks.check(got.shape == want.shape and np.abs(got - want).max() <= scale / 64 and
                 np.abs(exported - want).max() > scale / 4,
                 f"a checkpoint the safetensors package wrote: torch's logits with its weights (largest difference "
                 f"{np.abs(got - want).max():.3g} of {scale:.3g}; with the exported weights {np.abs(exported - want).max():.3g})")


def main():
    checks = tap.Checks()
    with tempfile.TemporaryDirectory() as tmp:
        test_real_checkpoint(checks, tmp)
        test_mlp(checks, tmp)
        test_batch_norm(checks, tmp)
        test_bfloat16(checks, tmp)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
