#!/usr/bin/python3
"""The zoo models compiled by shapec against PyTorch 1.13 eager and TorchScript (traced,
then frozen), in the same process and run, with 1 and 2 threads.  shapec's library is
called in-process through its C ABI (ctypes), so both sides pay the same call overhead.

usage: bench/bench_models.py SHAPEC [--quick] [--only=mlp,encoder,...]     (Debian's /usr/bin/python3)"""
import json
import os


from bench_common import timeit  # noqa: E402  (sets OPENBLAS_CORETYPE before numpy and torch load)
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(src, "tools"))
from shapec_tools import zoo  # noqa: E402
from shapec_tools.convert import convert  # noqa: E402
from shapec_tools.model_library import ModelLibrary  # noqa: E402

shapec = sys.argv[1]
quick = "--quick" in sys.argv
A = "_DimHint.AUTO"
B = "batch"  # a named Dim with min 1, so that batch 1 is inside the range (AUTO starts at 2)



ROWS = [  # name, module factory, spec, sample shapes, shapes to time
    ("mlp", zoo.mlp, [B, None], [8, 784], [[1, 784], [64, 784], [256, 784]]),
    ("resnet18", zoo.resnet18, [B, None, A, A], [2, 3, 64, 64], [[1, 3, 224, 224], [8, 3, 224, 224]]),
    ("mobilenet_v2", zoo.mobilenet_v2, [B, None, A, A], [2, 3, 64, 64], [[1, 3, 224, 224], [8, 3, 224, 224]]),
    ("encoder", zoo.EncoderBlock, [B, A, None], [2, 16, 256], [[8, 128, 256], [1, 512, 256]]),
    ("gelu_chain", zoo.Chain, [A, None], [64, 4096], [[4096, 4096]]),
]
only = [a.split("=", 1)[1] for a in sys.argv if a.startswith("--only=")]
if only:
    ROWS = [r for r in ROWS if r[0] in only[0].split(",")]
if quick:
    ROWS = [r[:4] + ([r[4][0]],) for r in ROWS if r[0] in ("mlp", "encoder")]

print(f"# OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE')} for both sides")
print(f"# torch {torch.__version__}, {os.cpu_count()} CPUs; times are medians in ms; ratio = shapec / peer (< 1: shapec faster)")
print(f"{'model':<13} {'shape':<18} {'thr':>3} {'shapec':>9} {'eager':>9} {'script':>9} {'vs eager':>9} {'vs script':>9}")
for name, factory, leaves, sample, shapes in ROWS:
    torch.manual_seed(0)
    module = factory().eval()
    with tempfile.TemporaryDirectory() as tmp:
        path = convert(module, [torch.randn(*sample)], tmp, input_names=["x"])
        with open(os.path.join(tmp, "spec.json"), "w") as f:
            json.dump({"dynamic_shapes": {"x": leaves}, "dims": {B: {"min": 1, "max": 4096}}}, f)
        t0 = time.perf_counter()
        r = subprocess.run([shapec, "export", path, "--dynamic", os.path.join(tmp, "spec.json"), "-o",
                            os.path.join(tmp, "out"), "-q"], capture_output=True, text=True)
        export_s = time.perf_counter() - t0
        if r.returncode:
            print(f"{name}: export failed: {r.stderr.strip()[:300]}")
            continue
        print(f"# {name}: export (analysis + LLVM + link) took {export_s:.2f} s")
        lib = ModelLibrary(os.path.join(tmp, "out", "model.so"))
        for shape in shapes:
            x = torch.randn(*shape)
            xn = x.numpy()
            run, outs = lib.prepare([xn])
            with torch.no_grad():
                script = torch.jit.freeze(torch.jit.trace(module, (x,)))
                for threads in (1, 2):
                    torch.set_num_threads(threads)
                    lib.set_num_threads(threads)
                    t_s = timeit(run)
                    t_e = timeit(lambda: module(x))
                    t_j = timeit(lambda: script(x))
                    print(f"{name:<13} {str(shape):<18} {threads:>3} {t_s:>9.3f} {t_e:>9.3f} {t_j:>9.3f} {t_s / t_e:>9.2f} {t_s / t_j:>9.2f}",
                          flush=True)
            got = outs[0]
            with torch.no_grad():
                want = module(x).numpy()
            err = float(np.abs(got - want).max() / max(1.0, np.abs(want).max()))
            print(f"#   {name} {shape}: shapec's output differs from eager by {err:.1e} (relative)")
