#!/usr/bin/python3
"""The thread pool of a model library: gelu(x*w + b) + x on tensors large enough to be
split across threads must give bit-identical results with 1, 2 and 3 threads, from
several caller threads at once, and match PyTorch; SHAPEC_NUM_THREADS sets the default
(else the CPUs the process may run on) and shapec_model_set_num_threads changes it.  Exit 77 without PyTorch.

usage: test_pool.py SHAPEC SOURCE_DIR"""
import json
import os
import subprocess
import sys
import tempfile
import threading

try:
    import numpy as np
    import torch
    import torch.nn.functional as F
except ImportError:
    print("skipped: PyTorch is not installed")
    sys.exit(77)

shapec, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "tools"))
from shapec_tools.convert import convert  # noqa: E402
from shapec_tools.model_library import ModelLibrary  # noqa: E402


class Chain(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(512))
        self.b = torch.nn.Parameter(torch.randn(512))

    def forward(self, x):
        return F.gelu(x * self.w + self.b) + torch.tanh(x)


def run(lib, x):
    call, outs = lib.prepare([x])
    call()
    return outs[0]


failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


torch.manual_seed(0)
module = Chain().eval()
with tempfile.TemporaryDirectory() as tmp:
    path = convert(module, [torch.randn(4, 512)], tmp, input_names=["x"])
    with open(os.path.join(tmp, "spec.json"), "w") as f:
        json.dump({"dynamic_shapes": {"x": ["_DimHint.AUTO", None]}}, f)
    subprocess.run([shapec, "export", path, "--dynamic", os.path.join(tmp, "spec.json"), "-o",
                    os.path.join(tmp, "out"), "-q"], check=True)
    so = os.path.join(tmp, "out", "model.so")
    # the default comes from the environment, read when the library first needs it
    probe = subprocess.run([sys.executable, "-c", f"import ctypes; print(ctypes.CDLL({so!r}).shapec_model_get_num_threads())"],
                           env=dict(os.environ, SHAPEC_NUM_THREADS="3"), capture_output=True, text=True)
    check(probe.stdout.strip() == "3", f"SHAPEC_NUM_THREADS=3 gives 3 threads (got {probe.stdout.strip()!r})")
    # without it, the CPUs the process may run on, as torch.get_num_threads() counts them:
    # under `taskset -c 0` one thread, not one per online CPU sharing that core
    allowed = len(os.sched_getaffinity(0))
    lib = ModelLibrary(so)
    check(lib.set_num_threads(0) == allowed, f"the default is every CPU the process may run on ({allowed})")
    env = {k: v for k, v in os.environ.items() if k != "SHAPEC_NUM_THREADS"}
    probe = subprocess.run([sys.executable, "-c", f"import ctypes; print(ctypes.CDLL({so!r}).shapec_model_get_num_threads())"],
                           env=env, capture_output=True, text=True,
                           preexec_fn=lambda: os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}))
    check(probe.stdout.strip() == "1", f"pinned to one CPU the default is 1 thread (got {probe.stdout.strip()!r})")

    x = np.random.default_rng(1).standard_normal((3001, 512)).astype(np.float32)  # rows do not split evenly
    with torch.no_grad():
        want = module(torch.from_numpy(x)).numpy()
    results = {}
    for threads in (1, 2, 3):
        check(lib.set_num_threads(threads) == threads, f"set_num_threads({threads})")
        results[threads] = run(lib, x)
    err = float(np.abs(results[1] - want).max() / np.abs(want).max())
    check(err < 1e-5, f"1 thread matches PyTorch (relative error {err:.1e})")
    check(np.array_equal(results[1], results[2]) and np.array_equal(results[1], results[3]),
          "1, 2 and 3 threads give bit-identical results")

    # several callers at once: one owns the pool, the others run on their own threads
    lib.set_num_threads(2)
    bad = []

    def caller(k):
        for _ in range(10):
            if not np.array_equal(run(lib, x), results[1]):
                bad.append(k)

    threads = [threading.Thread(target=caller, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check(not bad, f"4 callers x 10 runs with a 2-thread pool: {len(bad)} mismatches")

    # an empty batch is not in the range [2, int_oo]; one row of 512 is too small to split
    small = np.random.default_rng(2).standard_normal((2, 512)).astype(np.float32)
    with torch.no_grad():
        check(np.allclose(run(lib, small), module(torch.from_numpy(small)).numpy(), rtol=1e-5, atol=1e-6),
              "a 2-row input (one chunk, no hand-off) matches PyTorch")

    # a worker started for a bigger loop must not pick up an earlier, finished loop: the
    # pool grows one worker at a time between loops, in fresh processes
    stress = f"""
import sys, numpy as np
sys.path.insert(0, {os.path.join(src, "tools")!r})
from shapec_tools.model_library import ModelLibrary
lib = ModelLibrary({so!r})
small, _ = lib.prepare([np.ones((66, 512), np.float32)])  # two chunks: one worker
big, _ = lib.prepare([np.ones((3001, 512), np.float32)])   # eight threads: six more
small()
big()
"""
    crashed = 0
    for _ in range(60):
        r = subprocess.run([sys.executable, "-c", stress], env=dict(os.environ, SHAPEC_NUM_THREADS="8"),
                           capture_output=True, text=True, timeout=120)
        if r.returncode != 0 and not crashed:
            print(f"#   first failure (exit {r.returncode}): {r.stderr.strip()[-300:]}")
        crashed += r.returncode != 0
    check(crashed == 0, f"60 processes growing the pool from 2 to 8 threads between loops: {crashed} failed")

    # fork after the pool started: the child has none of the parent's workers
    forked = f"""
import os, sys, numpy as np
sys.path.insert(0, {os.path.join(src, "tools")!r})
from shapec_tools.model_library import ModelLibrary
lib = ModelLibrary({so!r})
x = np.ones((3001, 512), np.float32)
run, outs = lib.prepare([x]); run()
pid = os.fork()
if pid == 0:
    run2, outs2 = lib.prepare([x]); run2()
    os._exit(0 if np.array_equal(outs[0], outs2[0]) else 3)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
"""
    try:
        r = subprocess.run([sys.executable, "-c", forked], env=dict(os.environ, SHAPEC_NUM_THREADS="2"),
                           capture_output=True, text=True, timeout=60)
        check(r.returncode == 0, f"a forked child runs the model on its own pool (exit {r.returncode})")
    except subprocess.TimeoutExpired:
        check(False, "a forked child runs the model on its own pool (it hung)")

print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
