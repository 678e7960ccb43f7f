#!/usr/bin/python3
"""Half-precision models match torch: the Hugging Face families of test/real/half/ (its op programs also in
torch 2.6's archive layout, test/real/half-2.6/; made by
test/real/gen_half.py in torch 2.14: each float32 model `.to(torch.bfloat16)` or
`.to(torch.float16)`, exported with its named Dims) are exported by shapec, called through
the C ABI with inputs of that dtype at two shapes (the sample's, and every dynamic dim one
larger), and each output is compared with torch's and with the same model computed in
float32 (compare() says how; the line printed for each also counts the elements outside
torch.testing.assert_close's default tolerance of torch's output: bfloat16 rtol 1.6e-2,
float16 rtol 1e-3, atol 1e-5).  The op programs (op_*: one op, or a few, of the corpus,
float32 programs with a half-precision island and the reverse) must be within that
tolerance of torch's output in every element.  The outputs come back in the program's dtype, and a call
with float32 inputs is refused with a message naming both dtypes.

usage: test_half_precision.py SHAPEC SOURCE_DIR [--quick] [CASE...]
--quick: three families and six op programs per dtype (the sanitizer pass); --all: every case."""
import base64
import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/, for tap
import tap  # noqa: E402

TOLERANCE = {"bfloat16": (1.6e-2, 1e-5), "float16": (1e-3, 1e-5)}  # (rtol, atol), torch.testing's
DL = {"float32": (2, 32), "int64": (0, 64), "float16": (2, 16), "bfloat16": (4, 16)}
QUICK = ("hf_llama", "hf_bert", "hf_vit", "op_linear", "op_conv2d", "op_layer_norm", "op_sdpa_mask", "op_mixed_float32",
         "op_bfloat16_inside")
# Ops whose half-precision kernel in torch rounds inside the op, where shapec keeps float32:
# torch's CPU flash attention rounds the unnormalized probabilities to the dtype before
# multiplying them by V (shapec does not: its result is closer to float32's, and a few
# elements are an ulp away from torch's).  They are held to the models' criterion.
# A convolution on the CPU takes the batch norm, residual add and ReLU after it into its
# kernel and rounds its output once, where torch rounds after the convolution and after
# each of them (backends/llvm/cg_conv_round.c, as Inductor's fusions do): an element now
# and then is a half-precision ulp from torch's.  Held to the models' criterion too.
ROUNDS_INSIDE = ("op_sdpa_causal", "op_sdpa_mask", "op_conv_block")
MAX_RATIO, MEAN_RATIO = 2.0, 1.5
# op programs whose float32 versions have no CUDA lowering either (cumsum, a bool attention
# mask, bilinear upsampling: docs/cuda.md); the others also run on the CUDA path
CUDA_GAPS = ("op_cumsum", "op_sdpa_mask", "op_upsample")
# the op programs also built for CUDA (the rest build the same way: kept out for the suite's time)
CUDA_CASES = ("op_linear_gelu", "op_softmax", "op_layer_norm", "op_rms_norm", "op_conv2d", "op_sdpa_causal", "op_reduce",
              "op_unary", "op_mixed_float32", "op_bfloat16_inside", "op_matmul", "op_bmm",
              "hf_llama", "hf_bert", "hf_vit")  # and three Hugging Face families: a decoder, an encoder, vision
# ... of which these multiply half-precision operands: on cuBLAS in their dtype
# (sc_cu_bmm_half), checked with the emulation's cuBLAS (backends/cuda/emulate/cublas_host.c)
HALF_PRODUCTS = ("op_linear_gelu", "op_matmul", "op_bmm")
PTXAS = shutil.which("ptxas") or ("/usr/local/cuda/bin/ptxas" if os.access("/usr/local/cuda/bin/ptxas", os.X_OK) else None)  # shapec's error against the float32 result, against torch's


class Tensor(ctypes.Structure):
    """shapec_tensor (include/shapec/runtime.h), DLPack's DLTensor layout."""
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32),
                ("ndim", ctypes.c_int32), ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.c_void_p), ("byte_offset", ctypes.c_uint64)]


def bf16_bits(x):
    """float32 -> bfloat16 bit patterns, rounded to nearest even as torch's .to() rounds."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def widen(bits, dtype):
    """Bit patterns of a half dtype -> float64 values."""
    bits = np.asarray(bits, np.uint16)
    if dtype == "float16":
        return bits.view(np.float16).astype(np.float64)
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def filled(shape, k):
    """gen_corpus.filled(): sin over the flat index, in float64, then float32."""
    n = int(np.prod(shape)) if shape else 1
    return np.sin(np.arange(n, dtype=np.float64) * 0.01 + k).astype(np.float32).reshape(shape)


def build(recipe):
    """An input as the library takes it: (array in memory, dtype name)."""
    shape = recipe["shape"]
    if recipe["kind"] == "filled_int":
        n = int(np.prod(shape)) if shape else 1
        i = np.arange(n, dtype=np.int64)
        lo, hi = recipe["lo"], recipe["hi"]
        return (lo + (i * 7919 + 13 * recipe["k"]) % (hi - lo + 1)).reshape(shape), "int64"
    x = filled(shape, recipe["k"])
    dtype = recipe["dtype"]
    if dtype == "float16":
        return x.astype(np.float16).view(np.uint16), dtype
    if dtype == "bfloat16":
        return bf16_bits(x), dtype
    return x, dtype


DEVICE = [1]  # DLPack's device type of the tensors made: 1 CPU, 2 CUDA (an emulated CUDA library takes host memory)


def tensor(arr, dtype, keep):
    arr = np.require(arr, requirements="C")
    shape = (ctypes.c_int64 * max(1, arr.ndim))(*arr.shape)
    keep += [arr, shape]
    code, bits = DL[dtype]
    return Tensor(arr.ctypes.data, DEVICE[0], 0, arr.ndim, code, bits, 1, shape, None, 0)


def call(lib, inputs):
    """Runs the library: (outputs as (uint16 bits or values, dtype code/bits)), or its message."""
    keep = []
    n_out = lib.shapec_model_num_outputs()
    ins = (Tensor * max(1, len(inputs)))(*[tensor(a, dt, keep) for a, dt in inputs])
    shapes = [(ctypes.c_int64 * 16)() for _ in range(n_out)]
    ptrs = (ctypes.POINTER(ctypes.c_int64) * max(1, n_out))(*[ctypes.cast(s, ctypes.POINTER(ctypes.c_int64))
                                                               for s in shapes])
    err = ctypes.create_string_buffer(2048)
    if lib.shapec_model_output_shapes(ins, ptrs, err, 2048):
        return err.value.decode(errors="replace")
    outs, dtypes = [], []
    for i in range(n_out):
        packed = lib.shapec_model_output_dtype(i)
        dtype = next((name for name, cb in DL.items() if cb == (packed >> 8, packed & 255)), None)
        if dtype is None:
            return f"output {i} has dtype code {packed >> 8}/{packed & 255}"
        arr = np.zeros(list(shapes[i][:lib.shapec_model_output_ndim(i)]),
                       dtype=np.uint16 if dtype in ("float16", "bfloat16") else np.float32 if dtype == "float32" else np.int64)
        outs.append(tensor(arr, dtype, keep))
        dtypes.append((arr, dtype))
    touts = (Tensor * max(1, n_out))(*outs)
    if lib.shapec_model_run(ins, touts, err, 2048):
        return err.value.decode(errors="replace")
    return dtypes


def outside_tolerance(got, want, dtype):
    """How many elements of got (float64) are outside assert_close's tolerance of want."""
    rtol, atol = TOLERANCE[dtype]
    both_nan = np.isnan(got) & np.isnan(want)
    return int((~both_nan & ~(np.abs(got - want) <= atol + rtol * np.abs(want))).sum())


def compare(got, want, exact, dtype):
    """'' when shapec's half-precision output is as accurate as torch's, else why.

    Both approximate `exact` (the same weights and inputs computed in float32).  A model's
    half-precision output differs from torch's by more than assert_close's tolerance in
    many elements even when every op is computed as torch computes it: a sum accumulated
    in another order rounds to a neighbouring half-precision number, and the layers carry
    that on (torch's own bfloat16 GPT-2 is outside that tolerance of `exact` in a fifth of
    its logits).  So the test asks what a user can rely on: shapec's error against
    `exact` is no larger than torch's, up to a factor (MAX_RATIO on the largest error,
    MEAN_RATIO on the mean), and no element is NaN where torch's is not."""
    if (np.isnan(got) != np.isnan(want)).any():
        return "NaN where torch has a number (or the reverse)"
    ours, theirs = np.abs(got - exact), np.abs(want - exact)
    finite = np.isfinite(ours) & np.isfinite(theirs)
    ours, theirs = ours[finite], theirs[finite]
    if not ours.size:
        return ""
    atol = TOLERANCE[dtype][1]
    why = []
    if ours.max() > MAX_RATIO * theirs.max() + atol:
        why.append(f"largest error {ours.max():.3g}, torch's {theirs.max():.3g}")
    if ours.mean() > MEAN_RATIO * theirs.mean() + atol:
        why.append(f"mean error {ours.mean():.3g}, torch's {theirs.mean():.3g}")
    return ", ".join(why)


def check_case(checks, shapec, case_dir, tmp, cuda=False):
    """cuda: the library's CUDA path instead, built for the host and run by the emulated
    driver (--cuda-emulate), after its PTX for sm_80 and sm_90 passed ptxas."""
    answers = json.load(open(os.path.join(case_dir, "answers.json")))
    dtype, name = answers["dtype"], answers["case"]
    version = answers["torch"].split("+")[0]
    if cuda and name in CUDA_GAPS:
        return
    tag = "" if version.startswith("2.14") else f"_{version}"
    out = os.path.join(tmp, f"{dtype}_{name}{tag}" + ("_cuda" if cuda else ""))
    name = answers["label"] = name + ("" if not tag else f" [torch {version}]")
    flags = ["--target", "cuda", "--cuda-emulate"] if cuda else []
    r = subprocess.run([shapec, "export", os.path.join(case_dir, "model.pt2"), "-o", out, "-q", *flags],
                       capture_output=True, text=True, timeout=600)
    where = " (CUDA, emulated)" if cuda else ""
    checks.check(r.returncode == 0, f"{dtype} {name}{where}: exports" + ("" if r.returncode == 0 else f": {r.stderr.strip()[:300]}"))
    if r.returncode:
        return
    if cuda:
        check_ptx(checks, shapec, case_dir, f"{out}_ptx", f"{dtype} {name}")
    DEVICE[0] = 2 if cuda else 1
    try:
        check_runs(checks, answers, ctypes.CDLL(os.path.join(out, "model.so")), where)
        if cuda:
            check_cublas_runs(checks, answers, out, dtype)
    finally:
        DEVICE[0] = 1


def check_cublas_runs(checks, answers, out, dtype):
    """The CUDA path again with cuBLAS (emulated on the host: a second copy of the library,
    which opens its cuBLAS afresh): the same tolerance, and a product of half-precision
    operands taken by cublasGemmStridedBatchedEx in the program's dtype."""
    lib_path, log = os.path.join(out, "model_cublas.so"), os.path.join(out, "cublas.log")
    shutil.copy(os.path.join(out, "model.so"), lib_path)
    os.environ.update(SHAPEC_CUDA_EMULATE_CUBLAS="1", SHAPEC_CUDA_EMULATE_CUBLAS_LOG=log)
    try:
        check_runs(checks, answers, ctypes.CDLL(lib_path), " (CUDA, emulated, cuBLAS)")
    finally:
        del os.environ["SHAPEC_CUDA_EMULATE_CUBLAS"], os.environ["SHAPEC_CUDA_EMULATE_CUBLAS_LOG"]
    if answers["case"] in HALF_PRODUCTS:
        calls = open(log).read().splitlines() if os.path.exists(log) else []
        half = [c for c in calls if c.startswith(f"cublasGemmStridedBatchedEx {dtype} ")]
        checks.check(half and len(half) == len(calls), f"{dtype} {answers.get('label')} (CUDA): every product on cuBLAS "
                     f"in {dtype} ({calls[:3]})")


def check_ptx(checks, shapec, case_dir, out, what):
    """The real CUDA build's PTX assembles for sm_80 and sm_90 (where ptxas is installed)."""
    r = subprocess.run([shapec, "export", os.path.join(case_dir, "model.pt2"), "-o", out, "-q", "--target", "cuda",
                        "--cuda-arch", "sm_80"], capture_output=True, text=True, timeout=600)
    checks.check(r.returncode == 0, f"{what}: exports for CUDA" + ("" if r.returncode == 0 else f": {r.stderr.strip()[:300]}"))
    if r.returncode or not PTXAS:
        return
    for arch in ("sm_80", "sm_90"):
        for ptx in ("model.ptx", "model_kernels.ptx"):
            a = subprocess.run([PTXAS, f"-arch={arch}", os.path.join(out, ptx), "-o", os.devnull],
                               capture_output=True, text=True)
            checks.check(a.returncode == 0, f"{what}: ptxas -arch={arch} {ptx}" + ("" if a.returncode == 0 else
                                                                                  f": {a.stderr.strip()[:300]}"))


def check_runs(checks, answers, lib, where):
    dtype, name, label = answers["dtype"], answers["case"], answers.get("label", answers["case"])
    for k, run in enumerate(answers["runs"]):
        shapes = [i["shape"] for i in run["inputs"]]
        got = call(lib, [build(i) for i in run["inputs"]])
        if isinstance(got, str):
            checks.check(False, f"{dtype} {label}{where} at {shapes}: refused: {got[:300]}")
            continue
        why, notes = [], []
        for (arr, got_dtype), w in zip(got[len(got) - len(run["outputs"]):], run["outputs"]):
            if got_dtype != w["dtype"] or list(arr.shape) != w["shape"]:
                why.append(f"{got_dtype}{list(arr.shape)} where torch gives {w['dtype']}{w['shape']}")
                continue
            if "values" in w:  # a float32 output (a program converting back itself)
                want = np.frombuffer(base64.b64decode(w["values"]), np.float32).reshape(w["shape"]).astype(np.float64)
                got_wide = arr.astype(np.float64)
            else:
                want = widen(np.frombuffer(base64.b64decode(w["bits"]), np.uint16).reshape(w["shape"]), w["dtype"])
                got_wide = widen(arr, got_dtype)
            exact = np.frombuffer(base64.b64decode(w["exact"]), np.float32).reshape(w["shape"]).astype(np.float64)
            outside = outside_tolerance(got_wide, want, dtype)
            if name.startswith("op_") and name not in ROUNDS_INSIDE:  # one op: every element within assert_close's tolerance of torch's
                if outside:
                    why.append(f"{outside} of {want.size} elements outside assert_close's {dtype} tolerance of torch's"
                               f" (largest difference {np.nanmax(np.abs(got_wide - want)):.3g})")
                notes.append(f"largest difference from torch's {np.nanmax(np.abs(got_wide - want)):.3g}")
                continue
            d = compare(got_wide, want, exact, w["dtype"])
            if d:
                why.append(d)
            notes.append(f"{outside} of {want.size} outside assert_close of torch's, "
                         f"torch's {outside_tolerance(want, exact, dtype)} outside it of float32's")
        checks.check(not why, f"{dtype} {label}{where} at {shapes}: as accurate as torch ({'; '.join(why or notes)})")
    # float32 where the program takes a half dtype: refused, naming both
    first = answers["runs"][0]["inputs"]
    wrong = [(filled(i["shape"], i["k"]), "float32") if i["kind"] == "filled" else build(i) for i in first]
    if any(i["kind"] == "filled" and i["dtype"] != "float32" for i in first):
        msg = call(lib, wrong)
        checks.check(isinstance(msg, str) and "float32" in msg and dtype in msg,
                     f"{dtype} {label}{where}: float32 inputs refused naming both dtypes ({msg if isinstance(msg, str) else 'ran'})"[:400])


def check_entry_points(checks, shapec, root, tmp):
    """The other ways in: `shapec run` on .npy files (float16 natively; bfloat16 as float32
    values or as its bit patterns in int16/uint16, written back as float32) and the Python
    package (NumPy float16, torch bfloat16 and float16 tensors), each giving the C ABI's
    output bit for bit."""
    for dtype in ("float16", "bfloat16"):
        case_dir = os.path.join(root, "test", "real", "half", dtype, "hf_vit")
        answers = json.load(open(os.path.join(case_dir, "answers.json")))
        out = os.path.join(tmp, f"{dtype}_hf_vit")  # exported by check_case
        recipe = answers["runs"][0]["inputs"][0]
        bits, _ = build(recipe)
        got = call(ctypes.CDLL(os.path.join(out, "model.so")), [(bits, dtype)])
        want = widen(got[0][0], dtype)
        files = {"float32": filled(recipe["shape"], recipe["k"]),
                 "bits": bits.view(np.int16) if dtype == "bfloat16" else bits.view(np.float16)}
        for label, arr in files.items():
            npy = os.path.join(tmp, f"{dtype}_{label}.npy")
            np.save(npy, arr)
            r = subprocess.run([shapec, "run", os.path.join(out, "model.so"), "--input", f"x={npy}", "--out",
                                os.path.join(tmp, f"run_{dtype}_{label}")], capture_output=True, text=True)
            y = np.load(os.path.join(tmp, f"run_{dtype}_{label}", "output_0.npy")) if r.returncode == 0 else None
            ok = y is not None and y.dtype == (np.float16 if dtype == "float16" else np.float32) and \
                np.array_equal(y.astype(np.float64), want)
            checks.check(ok, f"shapec run, {dtype} model, {label} .npy input: the C ABI's output"
                         + ("" if ok else f" ({r.stderr.strip()[-300:]})"))
        sys.path.insert(0, os.path.join(root, "python"))
        import shapec as package
        m = package.load(os.path.join(out, "model.so"))
        if dtype == "float16":
            y = m(bits.view(np.float16))
            checks.check(y.dtype == np.float16 and np.array_equal(y.astype(np.float64), want),
                         "Python: NumPy float16 in, float16 out, the C ABI's output")
        try:
            import torch
        except ImportError:
            continue
        t = torch.from_numpy(bits.view(np.int16)).view(torch.bfloat16) if dtype == "bfloat16" else \
            torch.from_numpy(bits.view(np.float16))
        y = m(t)
        checks.check(str(y.dtype) == f"torch.{dtype}" and np.array_equal(y.float().numpy().astype(np.float64), want),
                     f"Python: a torch {dtype} tensor in, {dtype} out, the C ABI's output")


def check_conv_rounding(checks, shapec, root, tmp):
    """A half-precision convolution takes its rounding, and with it the batch norm,
    residual add and ReLU after it, and its output stays in the kernel's layout for the
    next convolution (cg_conv_round.c): the mechanism that makes bfloat16 networks faster
    than float32 ones, not only correct.  Where the CPU has bfloat16 dot products, oneDNN's
    bfloat16 convolutions write bfloat16 elements."""
    for dtype in ("bfloat16", "float16"):
        model = os.path.join(root, "test", "real", "half", dtype, "op_conv_block", "model.pt2")
        out = os.path.join(tmp, f"{dtype}_conv_rounding")
        r = subprocess.run([shapec, "export", model, "-o", out, "-v"], capture_output=True, text=True, timeout=600)
        taken = re.search(r"(\d+) outputs of convolutions and max pools stay in the kernel's layout.*; (\d+) roundings "
                          r"to half precision taken by convolutions", r.stderr)
        # three convolutions and three batch norms: six roundings; the block's two outputs and the pool's stay blocked
        checks.check(r.returncode == 0 and taken is not None and taken.group(2) == "6" and int(taken.group(1)) >= 3,
                     f"{dtype} op_conv_block: the convolutions take their six roundings, their outputs stay in the "
                     f"kernel's layout ({taken.group(0) if taken else r.stderr.strip()[-300:]})")
        flags = next((l for l in open("/proc/cpuinfo") if l.startswith("flags")), "")
        if dtype != "bfloat16" or r.returncode or " avx512_bf16" not in flags:
            continue
        npy = os.path.join(tmp, "conv_block_input.npy")
        np.save(npy, filled([2, 32, 24, 24], 0))
        v = subprocess.run([shapec, "run", os.path.join(out, "model.so"), "--input", f"x={npy}", "--out",
                            os.path.join(tmp, "conv_block_run")], capture_output=True, text=True,
                           env=dict(os.environ, ONEDNN_VERBOSE="1"), timeout=600)
        convs = [l for l in v.stdout.splitlines() + v.stderr.splitlines() if ",exec," in l and ",convolution," in l]
        checks.check(v.returncode == 0 and len(convs) == 3 and all("dst_bf16" in l for l in convs),
                     f"bfloat16 op_conv_block on AVX512-BF16: oneDNN's convolutions write bfloat16 "
                     f"({len(convs)} convolutions: {[l.split(',')[4] + ' ' + l.split(',')[6] for l in convs]})"[:400])


def main(argv):
    shapec, root = argv[1], argv[2]
    quick = "--quick" in argv
    only = [a for a in argv[3:] if a and not a.startswith("--")]
    checks = tap.Checks()
    roots = [os.path.join(root, "test", "real", r) for r in ("half", "half-2.6")]  # torch 2.14's, 2.6's archives
    half = roots[0]
    cases = sorted(os.path.join(r, dt, c) for r in roots for dt in sorted(os.listdir(r))
                   if os.path.isdir(os.path.join(r, dt)) for c in os.listdir(os.path.join(r, dt)))
    if quick:
        cases = [c for c in cases if os.path.basename(c) in QUICK]
    if only:
        cases = [c for c in cases if os.path.basename(c) in only or os.path.basename(c)[3:] in only]
    if not cases:
        print(f"no half-precision case under {half} matches {only}")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        for c in cases:
            check_case(checks, shapec, c, tmp)
            # SHAPEC_HALF_CUDA_ALL=1: every case on the CUDA path too (a measurement, minutes)
            if (os.path.basename(c) in CUDA_CASES or os.environ.get("SHAPEC_HALF_CUDA_ALL")) and not quick:
                check_case(checks, shapec, c, tmp, cuda=True)
        if all(any(c.endswith(os.path.join("half", dt, "hf_vit")) for c in cases) for dt in ("float16", "bfloat16")):
            check_entry_points(checks, shapec, root, tmp)
        if any(c.endswith(os.path.join("half", "bfloat16", "op_conv_block")) for c in cases):
            check_conv_rounding(checks, shapec, root, tmp)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
