#!/usr/bin/python3
"""The runtime's paths for tiny tensors, held to real torch 2.14's outputs.

Each program of test/cpu/tiny_ops/ (written by gen_tiny_ops.py under real torch) is
exported with its own dynamism, for this CPU and for an AVX2 one (haswell), and run at
both stored shapes on one thread and two.  Cases in EXACT must give torch's bits; the
others must be within 1e-5 of torch's outputs, relative to the largest.
Cases in SAME_BITS have pairs of outputs that must have the same bits as each other; they
are also exported for a CPU without AVX2 (x86-64).
Cases in SAME_ON_THREADS must give the same bits on one thread and two.
Cases in OVER_INPUTS are also run by outputs_over_inputs.c (given as OVER_INPUTS_DRIVER)
with each output in an input's own memory, which must give the same outputs.
usage: test_tiny_ops.py SHAPEC SOURCE_DIR [OVER_INPUTS_DRIVER]"""
import glob
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/, for tap
import tap  # noqa: E402

shapec, src = sys.argv[1], sys.argv[2]
CASES = os.path.join(src, "test", "cpu", "tiny_ops")
# sums in torch's order and precision (backends/cpu/runtime/avg_pool.c), copies (copy.c)
EXACT = {"avg_pool_2x2", "avg_pool_windows", "upsample_nearest", "upsample_bilinear"}
# the exact GELU of a linear layer (the runtime's pass) and of a fused loop (generated code),
# also for a library built for a CPU without AVX2 (x86-64), whose layers compute as its loops
# do on any CPU; with the runtime's kernels held to their paths for CPUs without AVX2
# (SHAPEC_NO_AVX2) only there, as a library for AVX2 or AVX-512 keeps its loops
SAME_BITS = {"gelu_layer_and_loop": [(0, 1)]}
HELD_TO_NO_AVX2 = os.environ.get("SHAPEC_NO_AVX2", "") not in ("", "0")
# rows of a tiny layer's layer norm wherever a thread's share of the batch puts them
SAME_ON_THREADS = {"linear_norm_threads"}
# outputs a layer computes in the caller's tensor for what was folded into it
OVER_INPUTS = {"folded_outputs"}
driver = sys.argv[3] if len(sys.argv) > 3 else None

checks = tap.Checks()
check = checks.check


def numbered(folder, prefix):
    return sorted(glob.glob(os.path.join(folder, f"{prefix}_*.npy")), key=lambda p: int(p.rsplit("_", 1)[1][:-4]))


def differences(got, want, exact):
    """What differs between an output and torch's: a description, or None."""
    if got.shape != want.shape:
        return f"shape {list(got.shape)}, want {list(want.shape)}"
    both_nan = np.isnan(got) & np.isnan(want)
    if exact:
        same = (got.view(np.uint32) == want.view(np.uint32)) | both_nan
        if same.all():
            return None
        at = np.argwhere(~same)[0]
        return f"{int((~same).sum())} of {got.size} outputs' bits differ, first at {list(at)}: {got[tuple(at)]!r} against {want[tuple(at)]!r}"
    if (np.isnan(got) != np.isnan(want)).any():
        return f"NaN at {int((np.isnan(got) != np.isnan(want)).sum())} outputs where torch has none, or the other way round"
    got, want = np.where(both_nan, 0, got), np.where(both_nan, 0, want)
    if (np.isinf(got) | np.isinf(want)).any() and not (got[np.isinf(want)] == want[np.isinf(want)]).all():
        return "infinities differ"
    finite = np.isfinite(want)
    scale = max(1.0, float(np.abs(want[finite]).max())) if finite.any() else 1.0
    err = float(np.abs(got[finite] - want[finite]).max()) / scale if finite.any() else 0.0
    return None if err <= 1e-5 else f"error {err:.1e}"


def check_case(case, target, flags):
    folder = os.path.join(CASES, case)
    same_bits = SAME_BITS.get(case, []) if target == "x86-64" or not HELD_TO_NO_AVX2 else []
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run([shapec, "export", os.path.join(folder, "model.pt2"), "-o", tmp, "-q"] + flags,
                           capture_output=True, text=True)
        if r.returncode != 0:
            check(False, f"{case} ({target}): exports ({r.stderr.strip()[-400:]})")
            return
        described = subprocess.run([shapec, "inspect", os.path.join(tmp, "model.so"), "--json"], capture_output=True,
                                   text=True)
        names = [i["name"] for i in json.loads(described.stdout)["inputs"] if i["kind"] == "user_input"]
        for k in (0, 1):
            inputs, wants = numbered(folder, f"in{k}"), numbered(folder, f"out{k}")
            shapes = [list(np.load(p).shape) for p in inputs]
            by_threads = {}
            for threads in ("1", "2"):
                args = [shapec, "run", os.path.join(tmp, "model.so"), "--out", os.path.join(tmp, f"r{k}{threads}")]
                for name, p in zip(names, inputs):
                    args += ["--input", f"{name}={p}"]
                res = subprocess.run(args, capture_output=True, text=True, env=dict(os.environ, SHAPEC_NUM_THREADS=threads))
                what = (f"{case} ({target}): {'torch 2.14 bits' if case in EXACT else 'matches torch 2.14'}"
                        f"{', outputs ' + str(same_bits) + ' the same bits' if same_bits else ''} at {shapes}, "
                        f"{threads} thread(s)")
                if res.returncode != 0:
                    check(False, f"{what} ({res.stderr.strip()[-300:]})")
                    continue
                outs = res.stdout.split()
                if len(outs) != len(wants):
                    check(False, f"{what} ({len(outs)} outputs, want {len(wants)})")
                    continue
                problems = [f"output {j}: {d}" for j, (o, w) in enumerate(zip(outs, wants))
                            if (d := differences(np.load(o), np.load(w), case in EXACT))]
                for a, b in same_bits:
                    got_a, got_b = np.load(outs[a]), np.load(outs[b])
                    differ = got_a.view(np.uint32) != got_b.view(np.uint32)
                    if differ.any():
                        at = tuple(np.argwhere(differ)[0])
                        problems.append(f"outputs {a} and {b}: {int(differ.sum())} differ in their bits, first at "
                                        f"{list(at)}: {got_a[at]!r} against {got_b[at]!r}")
                check(not problems, what + (f" ({'; '.join(problems)})" if problems else ""))
                by_threads[threads] = [np.load(o) for o in outs]
            if case in SAME_ON_THREADS and len(by_threads) == 2:
                differ = [int((a.view(np.uint32) != b.view(np.uint32)).sum()) for a, b in zip(by_threads["1"], by_threads["2"])]
                check(not any(differ), f"{case} ({target}) at {shapes}: one thread and two give the same bits "
                      f"(elements differing per output: {differ})")
        if case in OVER_INPUTS and driver:
            shapes = ",".join("x".join(str(d) for d in np.load(p).shape) for p in numbered(folder, "in0"))
            res = subprocess.run([driver, os.path.join(tmp, "model.so"), shapes], capture_output=True, text=True)
            check(res.returncode == 0, f"{case} ({target}): outputs over inputs ({(res.stdout + res.stderr).strip()[-300:]})")


cases = sorted(os.listdir(CASES))
check(EXACT | set(SAME_BITS) | SAME_ON_THREADS <= set(cases),
      f"every exact case is stored ({sorted((EXACT | set(SAME_BITS) | SAME_ON_THREADS) - set(cases))} missing)")
for case in cases:
    check_case(case, "native", [])
    check_case(case, "haswell", ["--cpu", "haswell"])
    if case in SAME_BITS:
        check_case(case, "x86-64", ["--cpu", "x86-64"])

sys.exit(checks.finish())
