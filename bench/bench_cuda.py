#!/usr/bin/python3
"""The zoo models on one GPU: shapec's CUDA library (--target cuda, called in-process
through its C ABI with CUDA tensors) against PyTorch eager on the same GPU, in the same
run.  Reports latency ratios and the largest difference between the two outputs.
Needs a GPU and a PyTorch built with CUDA; exits 77 (skipped) otherwise.

On a GPU machine without shapec, --libs DIR takes libraries exported elsewhere instead:
DIR/<model>/model.so, as a GPU bundle's zoo folder has them (test/cuda/bundle.py).  The
torch module is then built here with the zoo's seed; where this torch initializes
weights differently from the exporting one, the diff column says so by its size.

--profile adds, under each row, the GPU kernels of 20 shapec calls by their total time
(torch.profiler, which sees the driver-API launches of the library too).

usage: bench/bench_cuda.py (SHAPEC | --libs DIR) [--quick] [--arch=sm_90] [--no-cublas] [--profile]"""
import ctypes
import json
import os
import subprocess
import sys
import tempfile
import time

try:
    import torch
except ImportError:
    print("skipped: PyTorch is not installed")
    sys.exit(77)
if not torch.cuda.is_available():
    print("skipped: no CUDA GPU visible to PyTorch (this benchmark needs both)")
    sys.exit(77)

src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(src, "tools"))
from shapec_tools import zoo  # noqa: E402
from shapec_tools.convert import convert  # noqa: E402
from shapec_tools.model_library import Device, DType, Tensor  # noqa: E402

libs = sys.argv[sys.argv.index("--libs") + 1] if "--libs" in sys.argv else None
shapec = None if libs else sys.argv[1]
quick = "--quick" in sys.argv
profile = "--profile" in sys.argv
arch = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--arch=")), None)
if "--no-cublas" in sys.argv:
    os.environ["SHAPEC_CUDA_NO_CUBLAS"] = "1"  # shapec's own GEMM kernel
A = "_DimHint.AUTO"
CASES = [  # model, spec, input shapes
    ("mlp", {"x": [A, None]}, [[1, 784]], [[256, 784]]),
    ("encoder", {"x": [A, A, None]}, [[8, 128, 256]], [[1, 512, 256]]),
    ("resnet18", {"x": [A, None, A, A]}, [[1, 3, 224, 224]], [[8, 3, 224, 224]]),
    ("mobilenet_v2", {"x": [A, None, A, A]}, [[1, 3, 224, 224]], [[8, 3, 224, 224]]),
]


def cuda_tensor(t, keep):
    shape = (ctypes.c_int64 * t.dim())(*t.shape)
    keep += [shape, t]
    return Tensor(t.data_ptr(), Device(2, t.device.index or 0), t.dim(), DType(2, 32, 1), shape, None, 0)


def timeit(fn, runs=50):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs if not quick else 10):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2]


def kernel_profile(fn, calls=20):
    """Prints the GPU kernels of `calls` calls of fn, by total time, as markdown rows."""
    from torch.profiler import ProfilerActivity, profile as torch_profile
    torch.cuda.synchronize()
    with torch_profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    kernels = {}
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            name = e.name if len(e.name) < 70 else e.name[:67] + "..."
            total, count = kernels.get(name, (0.0, 0))
            kernels[name] = (total + e.time_range.elapsed_us(), count + 1)
    whole = sum(t for t, _ in kernels.values()) or 1.0
    print(f"|   | kernel (of {calls} calls) | us a call | launches a call | share | | |")
    for name, (total, count) in sorted(kernels.items(), key=lambda kv: -kv[1][0])[:12]:
        print(f"|   | `{name}` | {total / calls:.1f} | {count / calls:g} | {100 * total / whole:.0f}% | | |")


print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}, {time.strftime('%Y-%m-%d')}")
print(f"# torch's convolutions may use TF32: torch.backends.cudnn.allow_tf32 = {torch.backends.cudnn.allow_tf32}")
print("| model | input | shapec ms | torch ms | shapec/torch | shapec first call ms | max diff / scale |")
print("|---|---|---|---|---|---|---|")
for name, spec, *shape_sets in CASES:
    module, input_names, inputs, _ = zoo.build(name)
    with tempfile.TemporaryDirectory() as tmp:
        if libs:
            lib_path = os.path.join(libs, name, "model.so")
            if not os.path.exists(lib_path):
                print(f"| {name} | - | no {lib_path} | | | |")
                continue
        else:
            path = convert(module, inputs, tmp, input_names=input_names)
            with open(os.path.join(tmp, "spec.json"), "w") as f:
                json.dump({"dynamic_shapes": spec}, f)
            out = os.path.join(tmp, "out")
            flags = ["--target", "cuda"] + (["--cuda-arch", arch] if arch else [])
            subprocess.run([shapec, "export", path, "--dynamic", os.path.join(tmp, "spec.json"), "-o", out, "-q"] + flags,
                           check=True, capture_output=True)
            lib_path = os.path.join(out, "model.so")
        lib = ctypes.CDLL(lib_path)
        gpu_module = module.cuda().eval()
        for shapes in shape_sets:
            xs = [torch.randn(*s, device="cuda") for s in shapes]
            with torch.no_grad():
                want = gpu_module(*xs)
            want = [want] if torch.is_tensor(want) else list(want)
            keep = []
            ins = (Tensor * len(xs))(*[cuda_tensor(x, keep) for x in xs])
            got = [torch.empty_like(w) for w in want]
            outs = (Tensor * len(got))(*[cuda_tensor(g, keep) for g in got])
            err = ctypes.create_string_buffer(1024)

            def run_shapec():
                if lib.shapec_model_run(ins, outs, err, 1024):
                    raise RuntimeError(err.value.decode())

            try:
                t0 = time.perf_counter()
                run_shapec()  # the first call: the module's JIT, the weights' upload
                first = time.perf_counter() - t0
            except RuntimeError as e:
                print(f"| {name} | {shapes[0]} | failed: {str(e)[:200]} | | | | |", flush=True)
                continue
            diff = max(float((g - w).abs().max() / max(1.0, float(w.abs().max()))) for g, w in zip(got, want))
            t_s = timeit(run_shapec)
            with torch.no_grad():
                t_t = timeit(lambda: gpu_module(*xs))
            print(f"| {name} | {shapes[0]} | {t_s * 1e3:.3f} | {t_t * 1e3:.3f} | {t_s / t_t:.2f} | {first * 1e3:.1f} | "
                  f"{diff:.1e} |", flush=True)
            if profile:
                kernel_profile(run_shapec)
