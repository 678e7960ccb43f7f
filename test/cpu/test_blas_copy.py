#!/usr/bin/python3
"""A library's products when the process loaded OpenBLAS before it (numpy does at its
import) with slower kernels than this CPU's (backends/cpu/runtime/gemm.c): OpenBLAS picks its
kernels once, at its load, and falls back to SSE3 ("Prescott") on CPUs it does not know; the
library then loads a private copy in a link namespace of its own, which picks this CPU's.

A linear layer of 128 rows (a product OpenBLAS computes: SHAPEC_ONEDNN=0), exported from
PyTorch 1.13, called in fresh processes on one and two threads:
  - numpy loaded first with OPENBLAS_CORETYPE=Prescott (the kernels an unknown CPU gets):
    OpenBLAS is mapped twice (the library's own copy) and the result matches PyTorch;
  - numpy loaded first with this CPU's core type: the library uses that copy (mapped once).
Exit 77 without PyTorch, or on a CPU without AVX (no core type better than Prescott).

usage: test_blas_copy.py SHAPEC SOURCE_DIR"""
import os
import subprocess
import sys
import tempfile


def child(folder, numpy_core, threads):
    """numpy_core: the OPENBLAS_CORETYPE numpy's OpenBLAS loads with; prints the copies of
    OpenBLAS mapped and the largest error."""
    os.environ["OPENBLAS_CORETYPE"] = numpy_core
    import numpy as np
    del os.environ["OPENBLAS_CORETYPE"]  # the library then sets this CPU's
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
    from shapec_tools.model_library import ModelLibrary
    lib = ModelLibrary(os.path.join(folder, "model.so"))
    lib.set_num_threads(threads)
    run, outs = lib.prepare([np.load(os.path.join(folder, "x.npy"))])
    run()
    want = np.load(os.path.join(folder, "want.npy"))
    err = float(np.abs(outs[0] - want).max()) / float(np.abs(want).max())
    with open("/proc/self/maps") as fp:
        starts = {ln.split()[0] for ln in fp if "libopenblas" in ln and ln.split()[2] == "00000000"}
    print(len(starts), err)
    return 0


def main():
    if sys.argv[1] == "--child":
        return child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    shapec, src = sys.argv[1], sys.argv[2]
    try:
        import numpy as np
        import torch
    except ImportError:
        print("skipped: PyTorch is not installed (apt-get install python3-torch)")
        return 77
    sys.path.insert(0, os.path.join(src, "bench"))
    from bench_common import openblas_core  # the core type the library wants on this CPU (runtime/gemm.c)
    best = openblas_core()
    if not best:
        print("skipped: no OpenBLAS core type better than Prescott on this CPU")
        return 77
    sys.path.insert(0, os.path.join(src, "tools"))
    from shapec_tools.convert import convert
    failures = []

    def check(ok, what):
        print(("ok - " if ok else "not ok - ") + what, flush=True)
        if not ok:
            failures.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        torch.manual_seed(0)
        layer = torch.nn.Linear(64, 96).eval()
        x = torch.randn(128, 64)
        path = convert(layer, [x], tmp, input_names=["x"])
        r = subprocess.run([shapec, "export", path, "-o", tmp, "-q"], capture_output=True, text=True)
        check(r.returncode == 0, f"exports ({r.stderr.strip()[-300:]})")
        if r.returncode:
            return 1
        np.save(os.path.join(tmp, "x.npy"), x.numpy())
        with torch.no_grad():
            np.save(os.path.join(tmp, "want.npy"), layer(x).numpy())
        env = dict(os.environ, SHAPEC_ONEDNN="0")
        env.pop("OPENBLAS_CORETYPE", None)
        for numpy_core, copies, what in (("Prescott", 2, "numpy's OpenBLAS with SSE3 kernels: the library loads its own"),
                                         (best, 1, f"numpy's OpenBLAS with {best} kernels: the library uses it")):
            for threads in (1, 2):
                c = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", tmp, numpy_core, str(threads)],
                                   env=env, capture_output=True, text=True)
                got = c.stdout.split()
                ok = c.returncode == 0 and len(got) == 2 and int(got[0]) == copies and float(got[1]) < 1e-5
                check(ok, f"{what}, {threads} thread(s) (copies mapped, error: {got} {c.stderr.strip()[-300:]})")
    print(f"# {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
