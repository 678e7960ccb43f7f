#!/usr/bin/python3
"""A library's products when the process loaded OpenBLAS before it (numpy does at its import)
with slower kernels than this CPU's (backends/cpu/runtime/gemm.c): OpenBLAS picks its kernels
once, at its load, and falls back to SSE3 ("Prescott") on CPUs it does not know, so what
OpenBLAS would compute goes to oneDNN instead.

Programs exported by torch 2.14 (test/cpu/tiny_ops/, with their outputs), called on two
threads in fresh processes:
  - tall_linear, a linear layer of 128 rows, with DNNL_VERBOSE=1: with numpy loaded first
    with OPENBLAS_CORETYPE=Prescott the layer runs in oneDNN; with this CPU's core type, in
    OpenBLAS (not in oneDNN);
  - tall_products, a batched product read through a transpose and a plain product of 512
    rows, whose parts the library's pool computes: with numpy loaded first with Prescott's
    kernels their bits differ from those of the same process with oneDNN turned off
    (SHAPEC_ONEDNN=0: Prescott's kernels, no fused multiply-adds), so they did not run there;
and every run matches PyTorch.
Exit 77 without libdnnl, or on a CPU without AVX (no core type better than Prescott).

usage: test_slow_blas.py SHAPEC SOURCE_DIR"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/, for tap
import tap  # noqa: E402

TINY_OPS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tiny_ops")


def child(case, folder, numpy_core):
    """numpy_core: the OPENBLAS_CORETYPE numpy's OpenBLAS loads with; prints the largest
    error relative to the output's largest value, and a digest of the outputs' bits (oneDNN's
    verbose lines go to stdout before them)."""
    os.environ["OPENBLAS_CORETYPE"] = numpy_core
    import hashlib

    import numpy as np
    del os.environ["OPENBLAS_CORETYPE"]  # the library then sets this CPU's
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
    from shapec_tools.model_library import ModelLibrary
    lib = ModelLibrary(os.path.join(folder, "model.so"))
    lib.set_num_threads(2)
    here = os.path.join(TINY_OPS, case)
    ins = sorted(f for f in os.listdir(here) if f.startswith("in0_"))  # the first shape's inputs, in order
    run, outs = lib.prepare([np.load(os.path.join(here, f)) for f in ins])
    run()
    err, digest = 0.0, hashlib.sha256()
    for k, got in enumerate(outs):
        want = np.load(os.path.join(here, f"out0_{k}.npy"))
        err = max(err, float(np.abs(got - want).max()) / float(np.abs(want).max()))
        digest.update(np.ascontiguousarray(got).tobytes())
    print("error", err, flush=True)
    print("bits", digest.hexdigest(), flush=True)
    return 0


def child_run(folder, case, numpy_core, **env_changes):
    """(verbose lines of oneDNN inner products, error, bits digest, stderr) of a child."""
    env = dict(os.environ, DNNL_VERBOSE="1")
    for var in ("OPENBLAS_CORETYPE", "SHAPEC_ONEDNN"):
        env.pop(var, None)
    env.update(env_changes)
    c = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", case, folder, numpy_core], env=env,
                       capture_output=True, text=True)
    lines = c.stdout.splitlines()
    products = [ln for ln in lines if ln.startswith("onednn_verbose,exec,cpu,inner_product")]
    err = [float(ln.split()[1]) for ln in lines if ln.startswith("error ")]
    bits = [ln.split()[1] for ln in lines if ln.startswith("bits ")]
    ok = c.returncode == 0 and bool(err) and bool(bits)
    return ok, products, err[0] if err else None, bits[0] if bits else None, c.stderr.strip()[-300:]


def main():
    if sys.argv[1] == "--child":
        return child(sys.argv[2], sys.argv[3], sys.argv[4])
    shapec, src = sys.argv[1], sys.argv[2]
    tap.require_onednn()
    sys.path.insert(0, os.path.join(src, "bench"))
    from bench_common import openblas_core  # the core type the library wants on this CPU (runtime/gemm.c)
    best = openblas_core()
    if not best:
        tap.skip("no OpenBLAS core type better than Prescott on this CPU")
    checks = tap.Checks()
    check = checks.check

    with tempfile.TemporaryDirectory() as tmp:
        for case in ("tall_linear", "tall_products"):
            out = os.path.join(tmp, case)
            r = subprocess.run([shapec, "export", os.path.join(TINY_OPS, case, "model.pt2"), "-o", out, "-q"],
                               capture_output=True, text=True)
            check(r.returncode == 0, f"{case} exports ({r.stderr.strip()[-300:]})")
            if r.returncode:
                return 1
        linear = os.path.join(tmp, "tall_linear")
        for numpy_core, in_onednn, what in (("Prescott", True, "numpy's OpenBLAS with SSE3 kernels: the layer runs in oneDNN"),
                                            (best, False, f"numpy's OpenBLAS with {best} kernels: the layer runs in OpenBLAS")):
            ok, products, err, _, stderr = child_run(linear, "tall_linear", numpy_core)
            check(ok and bool(products) == in_onednn and err < 1e-5,
                  f"{what} (oneDNN products {len(products)}, error {err}) {stderr}")
        products = os.path.join(tmp, "tall_products")
        ok, _, err, rerouted, stderr = child_run(products, "tall_products", "Prescott")
        check(ok and err < 1e-5, f"tall_products, numpy's OpenBLAS with SSE3 kernels: matches PyTorch (error {err}) {stderr}")
        ok, _, err, prescott, stderr = child_run(products, "tall_products", "Prescott", SHAPEC_ONEDNN="0")
        check(ok and err < 1e-5, f"tall_products on SSE3 kernels (SHAPEC_ONEDNN=0): matches PyTorch (error {err}) {stderr}")
        check(rerouted != prescott, "tall_products, numpy's OpenBLAS with SSE3 kernels: not computed by them "
              f"(bits {rerouted} against {prescott} with oneDNN off)")
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
