#!/usr/bin/python3
"""Nothing keeps computing after a call returns: on two threads, the CPU time the whole
process uses while it sleeps 300 ms after a call must stay under 10 ms.  And one team of
threads computes: a model whose layers go through oneDNN runs its loops on OpenMP's team
too, so the library's own pool ("shapec-pool" threads) never starts; a model without
oneDNN has its pool's one worker.  A process forked after a call computes the same in the
child, on fresh workers (oneDNN on one thread there: libgomp's workers do not survive a
fork, and a team waiting for them would hang).

The library's products run in parts on its own pool with OpenBLAS single-threaded
(backends/cpu/runtime/gemm.c), whose idle workers would otherwise spin for about 0.1 s after
each product; the pool's workers spin at most 0.1 ms between loops (pool.c); oneDNN's OpenMP
workers are held to a short spin (GOMP_SPINCOUNT, onednn.c).  Models, from the zoo (converted
by the PyTorch installed here): the MLP and the encoder block (products), and resnet18 with
every convolution through oneDNN (OpenMP).  Each runs in a fresh process that first waits
0.5 s, so that numpy's own OpenBLAS threads, which spin after they start, are quiet.
The children load numpy (so OpenBLAS) before the library with this CPU's OpenBLAS core type;
the MLP once more with numpy's OpenBLAS on SSE3 kernels, where the library's products go to
oneDNN's (gemm.c): then its loops run on OpenMP's team.
Exit 77 without PyTorch.

usage: test_idle.py SHAPEC SOURCE_DIR"""
import json
import os
import subprocess
import sys
import tempfile

LIMIT_MS = 10.0


def load_numpy():
    """numpy, its OpenBLAS loaded with the core type the parent chose (NUMPY_OPENBLAS_CORE),
    before the library, which then sets its own."""
    os.environ["OPENBLAS_CORETYPE"] = os.environ.get("NUMPY_OPENBLAS_CORE", "")
    import numpy as np
    del os.environ["OPENBLAS_CORETYPE"]
    return np


if len(sys.argv) == 4 and sys.argv[1] == "--child":  # MODEL.so INPUT.npy
    import time

    np = load_numpy()
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
    from shapec_tools.model_library import ModelLibrary
    time.sleep(0.5)
    lib = ModelLibrary(sys.argv[2])
    lib.set_num_threads(2)
    run, _ = lib.prepare([np.load(sys.argv[3])])
    for _ in range(5):
        run()
    burned = []
    for _ in range(3):
        run()
        before = time.process_time()
        time.sleep(0.3)
        burned.append((time.process_time() - before) * 1e3)
    tasks = "/proc/self/task"
    names = [open(os.path.join(tasks, t, "comm")).read().strip() for t in os.listdir(tasks)]
    print(json.dumps({"burned": burned, "threads": names}))
    sys.exit(0)

if len(sys.argv) == 4 and sys.argv[1] == "--fork-child":  # MODEL.so INPUT.npy: exit 0, or 3 if it differs
    import signal

    np = load_numpy()
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
    from shapec_tools.model_library import ModelLibrary
    lib = ModelLibrary(sys.argv[2])
    lib.set_num_threads(2)
    run, outs = lib.prepare([np.load(sys.argv[3])])
    run()
    want = outs[0].copy()
    pid = os.fork()
    if pid == 0:
        signal.alarm(60)  # a hang ends the child with SIGALRM
        run()
        run()
        os._exit(0 if np.abs(outs[0] - want).max() <= 1e-5 * max(1.0, float(np.abs(want).max())) else 3)
    _, status = os.waitpid(pid, 0)
    sys.exit(os.waitstatus_to_exitcode(status) if os.waitstatus_to_exitcode(status) >= 0 else 100)

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/, for tap
import tap  # noqa: E402

tap.require_torch(" (apt-get install python3-torch python3-torchvision)")  # the zoo's models need it
import numpy as np  # noqa: E402

shapec, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "tools"))
from shapec_tools import zoo  # noqa: E402

checks = tap.Checks()
check = checks.check


HAVE_ONEDNN = tap.have_onednn()

sys.path.insert(0, os.path.join(src, "bench"))
from bench_common import openblas_core  # noqa: E402  (the core type the library wants here)

BEST = {"NUMPY_OPENBLAS_CORE": openblas_core() or ""}
# name, input shape, environment, whether its layers go through oneDNN
CASES = [("mlp", [64, 784], BEST, False), ("encoder", [4, 64, 256], BEST, True),
         ("resnet18", [2, 3, 96, 96], dict(BEST, SHAPEC_ONEDNN="always"), True)]
if openblas_core():  # a CPU with kernels better than SSE3's
    CASES.append(("mlp", [64, 784], {"NUMPY_OPENBLAS_CORE": "Prescott"}, True))

with tempfile.TemporaryDirectory() as tmp:
    for name, shape, env, onednn in CASES:
        out = os.path.join(tmp, name)
        r = subprocess.run([shapec, "export", *zoo.program_files(name, tmp), "-o", out, "-q"], capture_output=True,
                           text=True)
        if r.returncode != 0:
            check(False, f"{name}: exports ({r.stderr.strip()[-300:]})")
            continue
        x_path = os.path.join(tmp, name + "-x.npy")
        np.save(x_path, np.random.default_rng(0).standard_normal(shape, dtype=np.float32))
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", os.path.join(out, "model.so"), x_path],
                           capture_output=True, text=True, env=dict(os.environ, **env))
        if r.returncode != 0:
            check(False, f"{name}: runs ({r.stderr.strip()[-300:]})")
            continue
        report = json.loads(r.stdout)
        burned, pool = report["burned"], report["threads"].count("shapec-pool")
        print(f"# {name}: threads {report['threads']}")
        flags = "".join(f" {k}={v}" for k, v in env.items())
        check(max(burned) < LIMIT_MS, f"{name} {shape}{flags}, 2 threads: CPU time used in the 300 ms after each of three "
                                      f"calls {', '.join(f'{b:.1f}' for b in burned)} ms (limit {LIMIT_MS:g})")
        if onednn and HAVE_ONEDNN:
            check(pool == 0, f"{name}{flags}: its loops ran on oneDNN's OpenMP team, no pool worker started ({pool})")
        elif not onednn:
            check(pool == 1, f"{name}{flags}: its loops ran on the library's pool, one worker for 2 threads ({pool})")
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "--fork-child", os.path.join(out, "model.so"),
                            x_path], capture_output=True, text=True, env=dict(os.environ, **env), timeout=300)
        check(r.returncode == 0, f"{name}{flags}: a child forked after a call computes the same, without hanging "
                                 f"(exit {r.returncode}; 100: killed by a signal) {r.stderr.strip()[-200:]}")

sys.exit(checks.finish())
