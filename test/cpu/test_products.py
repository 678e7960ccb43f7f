#!/usr/bin/python3
"""Matrix products that read views in place and absorb the node after them
(backends/llvm/cg_transpose.c, cg_epilogue.c), held to real torch 2.14's outputs.

Each program of test/cpu/products/ (written by gen_products.py under real torch) is
exported with its own dynamism; `export -v` must report what the products absorbed (so
the fast path is really taken), and the library must match torch's outputs at both
stored shapes with oneDNN off, on for large problems and on for every size, on one
thread and two; built for this CPU and for an AVX2 one (haswell).   usage: test_products.py SHAPEC SOURCE_DIR"""
import glob
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
CASES = os.path.join(src, "test", "cpu", "products")

# what `export -v` must say the products absorbed: views read through strides, permutes
# of results written in place, scales, residual adds; attentions run as one kernel
# (backends/llvm/cg_attention.c)
ABSORBED = {
    "encoder": (4, 1, 1, 2, 1),       # q, k, k^T, v heads; the heads' merge; / sqrt(d); both residuals
    "one_head": (0, 1, 1, 0, 1),      # k^T is also a graph output: materialized (the kernel reads it so)
    "permutes": (5, 0, 0, 0, 0),      # x.transpose(1, 3) keeps no matrix dim contiguous: materialized
    "shared_views": (1, 0, 1, 0, 0),  # b^T is also read by relu; scores is read twice: no scale
    "bmm": (2, 1, 0, 0, 0),
    "residuals": (0, 0, 0, 1, 0),
    "strided_views": (0, 0, 0, 0, 0),     # not: a ReLU between (fused with the add), r after the layer, alpha 2, read twice
    "long_attention": (1, 0, 1, 0, 1),  # k^T; / 3; 300 and 530 keys (chunks of the kernel), width 20
    "dropout_residuals": (0, 0, 0, 1, 0),  # through the first dropout only: the other two are read twice
    # the batch-first input's transpose read by the in-projection in place (its rows left
    # in the input's order for the head chains); the attention's result written permuted,
    # in batch-first rows, so that both residuals (through dropout) are the layers' epilogues
    "torch_layer": (1, 1, 0, 2, 0),
    "wide_torch_layer": (1, 1, 0, 2, 0),  # the same, the layers in the runtime (96 wide)
    "chains_shared": (0, 0, 0, 0, 0),
}

# attention operands read through chains of views (backends/llvm/cg_view_chains.c)
CHAINS = {
    "torch_layer": 3,    # q, k and v split off the in-projection
    "wide_torch_layer": 3,
    "chains_shared": 5,  # q, v and the one head tensor three times; not k (a graph output)
}

# out-projections over batch-first rows (backends/llvm/cg_batch_first.c); 0 where not listed
BATCH_FIRST = {"torch_layer": 1, "wide_torch_layer": 1}

checks = tap.Checks()
check = checks.check


# views whose every reader is a fused loop, read there in place (backends/llvm/cg_strided_views.c):
# a stepped slice, two selects, a narrow, an expand, a transpose and two permutes; not the
# slice that a sum reads too
VIEWS_IN_PLACE = {"strided_views": 8}


def check_case(case, target, flags, want):
    """Exports `case` for `target` (export flags), checks what its products absorbed and its
    outputs against torch's."""
    folder = os.path.join(CASES, case)
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run([shapec, "export", os.path.join(folder, "model.pt2"), "-o", tmp, "-q", "-v"] + flags,
                           capture_output=True, text=True)
        if r.returncode != 0:
            check(False, f"{case} ({target}): exports ({r.stderr.strip()[-400:]})")
            return
        m = re.search(r"products absorbed (\d+) transposes or permutes .*?, (\d+) permutes of their results, (\d+) scales, "
                      r"(\d+) residual adds; (\d+) attentions run as one kernel", r.stderr)
        got = tuple(int(v) for v in m.groups()) if m else None
        check(got == want, f"{case} ({target}): the products absorbed {got}, want {want}")
        if case in CHAINS:
            m = re.search(r"(\d+) attention operands read through chains of views", r.stderr)
            got = int(m.group(1)) if m else None
            check(got == CHAINS[case], f"{case} ({target}): {got} attention operands read through chains, want {CHAINS[case]}")
        m = re.search(r"(\d+) out-projections over batch-first rows", r.stderr)
        got = int(m.group(1)) if m else None
        check(got == BATCH_FIRST.get(case, 0),
              f"{case} ({target}): {got} out-projections over batch-first rows, want {BATCH_FIRST.get(case, 0)}")
        if case in VIEWS_IN_PLACE:
            m = re.search(r"(\d+) views read in place by fused loops", r.stderr)
            got = int(m.group(1)) if m else None
            check(got == VIEWS_IN_PLACE[case], f"{case} ({target}): {got} views read in place, want {VIEWS_IN_PLACE[case]}")
        for k in (0, 1):
            inputs = sorted(glob.glob(os.path.join(folder, f"in{k}_*.npy")), key=lambda p: int(p.rsplit("_", 1)[1][:-4]))
            wants = sorted(glob.glob(os.path.join(folder, f"out{k}_*.npy")), key=lambda p: int(p.rsplit("_", 1)[1][:-4]))
            shapes = [list(np.load(p).shape) for p in inputs]
            described = subprocess.run([shapec, "inspect", os.path.join(tmp, "model.so"), "--json"], capture_output=True,
                                       text=True)
            names = [i["name"] for i in json.loads(described.stdout)["inputs"] if i["kind"] == "user_input"]
            for mode in ("0", "1", "always"):
                for threads in ("1", "2"):
                    args = [shapec, "run", os.path.join(tmp, "model.so"), "--out", os.path.join(tmp, f"r{k}{mode}{threads}")]
                    for name, p in zip(names, inputs):
                        args += ["--input", f"{name}={p}"]
                    env = dict(os.environ, SHAPEC_ONEDNN=mode, SHAPEC_NUM_THREADS=threads)
                    res = subprocess.run(args, capture_output=True, text=True, env=env)
                    what = f"{case} ({target}): matches torch 2.14 at {shapes}, SHAPEC_ONEDNN={mode}, {threads} thread(s)"
                    if res.returncode != 0:
                        check(False, f"{what} ({res.stderr.strip()[-300:]})")
                        continue
                    outs = res.stdout.split()
                    worst = 0.0 if len(outs) == len(wants) else float("inf")
                    for o, w in zip(outs, wants):
                        got_t, want_t = np.load(o), np.load(w)
                        if got_t.shape != want_t.shape:
                            worst = float("inf")
                            continue
                        scale = max(1.0, float(np.abs(want_t).max())) if want_t.size else 1.0
                        if want_t.size:
                            worst = max(worst, float(np.abs(got_t - want_t).max()) / scale)
                    check(worst < 1e-4, f"{what} (error {worst:.1e})")


def onednn_run(case):
    """Exports and runs the case with every product in oneDNN (SHAPEC_ONEDNN=always, one
    thread, DNNL_VERBOSE): whether both succeeded, and the primitives' exec lines."""
    folder = os.path.join(CASES, case)
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run([shapec, "export", os.path.join(folder, "model.pt2"), "-o", tmp, "-q"], capture_output=True,
                           text=True)
        inputs = sorted(glob.glob(os.path.join(folder, "in0_*.npy")), key=lambda p: int(p.rsplit("_", 1)[1][:-4]))
        described = subprocess.run([shapec, "inspect", os.path.join(tmp, "model.so"), "--json"], capture_output=True,
                                   text=True)
        names = [i["name"] for i in json.loads(described.stdout)["inputs"] if i["kind"] == "user_input"]
        args = [shapec, "run", os.path.join(tmp, "model.so"), "--out", tmp]
        for name, p in zip(names, inputs):
            args += ["--input", f"{name}={p}"]
        env = dict(os.environ, SHAPEC_ONEDNN="always", SHAPEC_NUM_THREADS="1", DNNL_VERBOSE="1")
        res = subprocess.run(args, capture_output=True, text=True, env=env)
        lines = [ln for ln in res.stdout.splitlines() + res.stderr.splitlines() if ln.startswith("onednn_verbose,exec,cpu,")]
        return r.returncode == 0 and res.returncode == 0, lines


def check_linear_epilogue(case, in_onednn):
    """oneDNN computes a linear layer's product alone, with either of its kernels (gemm on
    AVX2, brgemm on AVX-512): the bias, activation and residual are the runtime's pass after
    it (backends/cpu/runtime/onednn.c, make_linear_plan), never oneDNN's bias or post-ops.
    Exactly `in_onednn` layers get there: on CPUs with AVX2 and FMA those of at most 64 x 64
    weights run code of their own (backends/llvm/cg_tiny_linear.c)."""
    ok, lines = onednn_run(case)
    layers = [ln for ln in lines if ln.startswith("onednn_verbose,exec,cpu,inner_product")]
    fused = [ln for ln in layers if "post-ops" in ln or "bia_f32" in ln]
    check(ok and len(layers) == in_onednn and not fused,
          f"{case}: {len(layers)} linear layers ran in oneDNN (want {in_onednn}) as the product alone (with a bias or "
          f"post-ops: {fused})")


def check_no_reference_kernel(case):
    """No product runs in oneDNN's reference implementation (a plain loop nest: a bmm's
    [1, 64, 128, 64] descriptor once took it, 1000x slower than OpenBLAS); where oneDNN has
    nothing better the runtime's own path computes it (onednn.c, reference_kernel)."""
    ok, lines = onednn_run(case)
    ref = [ln for ln in lines if ",ref:" in ln]
    check(ok and lines and not ref, f"{case}: {len(lines)} oneDNN primitives ran, none of them its reference kernel ({ref[:2]})")


# EncoderBlock(32, 4, 48)'s six layers are tiny, EncoderBlock(96, 4, 192)'s are not
CPU_FLAGS = set(open("/proc/cpuinfo").read().split())
check_linear_epilogue("encoder", 0 if {"avx2", "fma"} <= CPU_FLAGS else 6)
check_linear_epilogue("wide_encoder", 6)
for case in ("bmm", "encoder", "permutes", "one_head"):
    check_no_reference_kernel(case)

# the attention kernel is 8 lanes wide: an export for a CPU with AVX-512 keeps the nodes
# (cg_plan_attention); one for haswell (AVX2) takes it on any machine here
with open("/proc/cpuinfo") as fp:
    host_avx512 = " avx512f" in fp.read()
for case in sorted(ABSORBED):
    want = ABSORBED[case]
    check_case(case, "native", [], want[:4] + (0,) if host_avx512 else want)
    check_case(case, "haswell", ["--cpu", "haswell"], want)

sys.exit(checks.finish())
