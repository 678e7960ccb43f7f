#!/usr/bin/python3
"""A library's linear layers when the process loaded OpenBLAS before it (numpy does at its
import) with slower kernels than this CPU's (backends/cpu/runtime/gemm.c): OpenBLAS picks its
kernels once, at its load, and falls back to SSE3 ("Prescott") on CPUs it does not know, so
the layers OpenBLAS would compute (many rows on two threads) go to oneDNN instead.

A linear layer of 128 rows exported by torch 2.14 (test/cpu/tiny_ops/tall_linear, with its
output), called on two threads in fresh processes with DNNL_VERBOSE=1:
  - numpy loaded first with OPENBLAS_CORETYPE=Prescott: the layer runs in oneDNN;
  - numpy loaded first with this CPU's core type: it runs in OpenBLAS (not in oneDNN);
and matches PyTorch either way.
Exit 77 without libdnnl, or on a CPU without AVX (no core type better than Prescott).

usage: test_slow_blas.py SHAPEC SOURCE_DIR"""
import ctypes
import os
import subprocess
import sys
import tempfile

CASE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tiny_ops", "tall_linear")


def child(folder, numpy_core):
    """numpy_core: the OPENBLAS_CORETYPE numpy's OpenBLAS loads with; prints the largest
    error (oneDNN's verbose lines go to stdout before it)."""
    os.environ["OPENBLAS_CORETYPE"] = numpy_core
    import numpy as np
    del os.environ["OPENBLAS_CORETYPE"]  # the library then sets this CPU's
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
    from shapec_tools.model_library import ModelLibrary
    lib = ModelLibrary(os.path.join(folder, "model.so"))
    lib.set_num_threads(2)
    run, outs = lib.prepare([np.load(os.path.join(CASE, "in0_0.npy"))])
    run()
    want = np.load(os.path.join(CASE, "out0_0.npy"))
    print("error", float(np.abs(outs[0] - want).max()) / float(np.abs(want).max()), flush=True)
    return 0


def main():
    if sys.argv[1] == "--child":
        return child(sys.argv[2], sys.argv[3])
    shapec, src = sys.argv[1], sys.argv[2]
    try:
        ctypes.CDLL("libdnnl.so.2")
    except OSError:
        print("skipped: libdnnl.so.2 is not installed (apt-get install libdnnl2)")
        return 77
    sys.path.insert(0, os.path.join(src, "bench"))
    from bench_common import openblas_core  # the core type the library wants on this CPU (runtime/gemm.c)
    best = openblas_core()
    if not best:
        print("skipped: no OpenBLAS core type better than Prescott on this CPU")
        return 77
    failures = []

    def check(ok, what):
        print(("ok - " if ok else "not ok - ") + what, flush=True)
        if not ok:
            failures.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run([shapec, "export", os.path.join(CASE, "model.pt2"), "-o", tmp, "-q"], capture_output=True,
                           text=True)
        check(r.returncode == 0, f"exports ({r.stderr.strip()[-300:]})")
        if r.returncode:
            return 1
        env = dict(os.environ, DNNL_VERBOSE="1")
        for var in ("OPENBLAS_CORETYPE", "SHAPEC_ONEDNN"):
            env.pop(var, None)
        for numpy_core, in_onednn, what in (("Prescott", True, "numpy's OpenBLAS with SSE3 kernels: the layer runs in oneDNN"),
                                            (best, False, f"numpy's OpenBLAS with {best} kernels: the layer runs in OpenBLAS")):
            c = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", tmp, numpy_core], env=env,
                               capture_output=True, text=True)
            products = [ln for ln in c.stdout.splitlines() if ln.startswith("onednn_verbose,exec,cpu,inner_product")]
            err = [float(ln.split()[1]) for ln in c.stdout.splitlines() if ln.startswith("error ")]
            check(c.returncode == 0 and bool(products) == in_onednn and err and err[0] < 1e-5,
                  f"{what} (oneDNN products {len(products)}, error {err}) {c.stderr.strip()[-300:]}")
    print(f"# {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
