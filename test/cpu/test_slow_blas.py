#!/usr/bin/python3
"""A library's products when the process loaded OpenBLAS before it (numpy does at its import)
with slower kernels than this CPU's (backends/cpu/runtime/gemm.c): OpenBLAS picks its kernels
once, at its load, and falls back to SSE3 ("Prescott") on CPUs it does not know, so what
OpenBLAS would compute goes to oneDNN instead.

Programs exported by torch 2.14 (test/cpu/tiny_ops/, with their outputs), in fresh processes
on two threads: tall_linear on 8 rows (a linear layer too small for oneDNN's inner product,
computed by the library's built-in path), tall_products (a batched product read through a
transpose beside a plain product of 512 rows) and tall_mm (a plain product alone, which no
layer of the library loads oneDNN for), their products split in parts by the library's
pool.  With numpy loaded first with OPENBLAS_CORETYPE=Prescott their bits differ from those
of the same process with oneDNN turned off (SHAPEC_ONEDNN=0: Prescott's kernels, no fused
multiply-adds), so they did not run there; and every run matches PyTorch.
Exit 77 without libdnnl, or on a CPU without AVX (no core type better than Prescott).

usage: test_slow_blas.py SHAPEC SOURCE_DIR"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/, for tap
import tap  # noqa: E402

TINY_OPS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tiny_ops")


def child(case, folder, numpy_core, threads, rows):
    """numpy_core: the OPENBLAS_CORETYPE numpy's OpenBLAS loads with; rows: of the first
    input and output, all of them if 0.  Prints the largest error relative to the output's
    largest value, and a digest of the outputs' bits."""
    os.environ["OPENBLAS_CORETYPE"] = numpy_core
    import hashlib

    import numpy as np
    del os.environ["OPENBLAS_CORETYPE"]  # the library then sets this CPU's
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
    from shapec_tools.model_library import ModelLibrary
    lib = ModelLibrary(os.path.join(folder, "model.so"))
    lib.set_num_threads(threads)
    here = os.path.join(TINY_OPS, case)
    ins = [np.load(os.path.join(here, f)) for f in sorted(f for f in os.listdir(here) if f.startswith("in0_"))]
    if rows:  # a linear layer's rows are independent: the first rows of its stored output
        ins[0] = np.ascontiguousarray(ins[0][:rows])
    run, outs = lib.prepare(ins)
    run()
    err, digest = 0.0, hashlib.sha256()
    for k, got in enumerate(outs):
        want = np.load(os.path.join(here, f"out0_{k}.npy"))
        want = want[:rows] if rows else want
        err = max(err, float(np.abs(got - want).max()) / float(np.abs(want).max()))
        digest.update(np.ascontiguousarray(got).tobytes())
    print("error", err, flush=True)
    print("bits", digest.hexdigest(), flush=True)
    return 0


def child_run(folder, case, numpy_core, threads=2, rows=0, **env_changes):
    """(ok, error, bits digest, stderr) of a child."""
    env = dict(os.environ)
    for var in ("OPENBLAS_CORETYPE", "SHAPEC_ONEDNN"):
        env.pop(var, None)
    env.update(env_changes)
    c = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", case, folder, numpy_core, str(threads),
                        str(rows)], env=env, capture_output=True, text=True)
    lines = c.stdout.splitlines()
    err = [float(ln.split()[1]) for ln in lines if ln.startswith("error ")]
    bits = [ln.split()[1] for ln in lines if ln.startswith("bits ")]
    ok = c.returncode == 0 and bool(err) and bool(bits)
    return ok, err[0] if err else None, bits[0] if bits else None, c.stderr.strip()[-300:]


def main():
    if sys.argv[1] == "--child":
        return child(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6]))
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
        for case in ("tall_linear", "tall_products", "tall_mm"):
            out = os.path.join(tmp, case)
            r = subprocess.run([shapec, "export", os.path.join(TINY_OPS, case, "model.pt2"), "-o", out, "-q"],
                               capture_output=True, text=True)
            check(r.returncode == 0, f"{case} exports ({r.stderr.strip()[-300:]})")
            if r.returncode:
                return 1
        for case, rows in (("tall_linear", 8), ("tall_products", 0), ("tall_mm", 0)):
            folder = os.path.join(tmp, case)
            ok, err, rerouted, stderr = child_run(folder, case, "Prescott", rows=rows)
            check(ok and err < 1e-5, f"{case}, numpy's OpenBLAS with SSE3 kernels: matches PyTorch (error {err}) {stderr}")
            ok, err, prescott, stderr = child_run(folder, case, "Prescott", rows=rows, SHAPEC_ONEDNN="0")
            check(ok and err < 1e-5, f"{case} on SSE3 kernels (SHAPEC_ONEDNN=0): matches PyTorch (error {err}) {stderr}")
            check(rerouted != prescott, f"{case}, numpy's OpenBLAS with SSE3 kernels: not computed by them "
                  f"(bits {rerouted[:16] if rerouted else None} against {prescott[:16] if prescott else None} "
                  "with oneDNN off)")
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
