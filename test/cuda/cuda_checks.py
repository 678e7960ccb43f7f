"""What the numerics tests do for a library with CUDA code (SHAPEC_TEST_TARGET=cuda or
cpu,cuda): export flags, ptxas on its PTX for sm_80 and sm_90, the no-GPU probe, and the
devices to run on (the GPU only where there is one).

SHAPEC_TEST_CUDA_EMULATE=1 exports with --cuda-emulate instead: the CUDA path is built
for the host and run by the emulated driver, so "cuda" is computed here, without a GPU
(there is no PTX then, and no probe)."""
import ctypes
import os
import shutil
import subprocess

TARGET = os.environ.get("SHAPEC_TEST_TARGET", "cpu")
CUDA = "cuda" in TARGET.split(",")
EMULATE = CUDA and os.environ.get("SHAPEC_TEST_CUDA_EMULATE") == "1"
PTXAS = shutil.which("ptxas") or ("/usr/local/cuda/bin/ptxas" if os.access("/usr/local/cuda/bin/ptxas", os.X_OK) else None)
NO_GPU_PROBE = os.environ.get("SHAPEC_NO_GPU_PROBE")


def gpu_available():
    """A CUDA driver that sees at least one device."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    count = ctypes.c_int(0)
    return cuda.cuInit(0) == 0 and cuda.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value > 0


GPU = EMULATE or (CUDA and gpu_available())
if CUDA and not EMULATE and not PTXAS:
    print("skip - ptxas not found (PATH, /usr/local/cuda/bin): the PTX is not assembled in this run")


def export_flags(arch="sm_80"):
    return ["--target", TARGET] + (["--cuda-arch", arch] if CUDA else []) + (["--cuda-emulate"] if EMULATE else [])


def devices():
    """Where a case's outputs are computed and compared: the CPU when the library has CPU
    code, the GPU when it has CUDA code and this machine has a GPU."""
    return (["cpu"] if "cpu" in TARGET.split(",") else []) + (["cuda"] if GPU else [])


_assembled = set()  # (arch, text) of kernel PTX already assembled in this run


def ptxas(outdir, archs=("sm_80", "sm_90")):
    """[(arch, ok, message)] for OUTDIR/model.ptx, and for OUTDIR/model_kernels.ptx (shapec's
    device kernels: the same text for every model of one arch, so assembled once a run);
    [] where ptxas is absent."""
    if not CUDA or not PTXAS or EMULATE:
        return []
    results = []
    for arch in archs:
        for name in ("model.ptx", "model_kernels.ptx"):
            path = os.path.join(outdir, name)
            if name == "model_kernels.ptx":
                with open(path) as f:
                    key = (arch, f.read())
                if key in _assembled:
                    continue
                _assembled.add(key)
            r = subprocess.run([PTXAS, f"-arch={arch}", path, "-o", os.devnull], capture_output=True, text=True)
            results.append((arch, r.returncode == 0, f"({name}) " + (r.stderr or r.stdout).strip()[:300]))
    return results


def no_gpu(lib, shapes):
    """(ok, output) of the no-GPU probe for a library and one shape per input; None where
    it does not apply (no probe, or this machine has a CUDA driver)."""
    if not CUDA or not NO_GPU_PROBE or EMULATE:
        return None
    args = [NO_GPU_PROBE, lib] + ["x".join(str(d) for d in s) if len(s) else "-" for s in shapes]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode == 77:
        return None
    return r.returncode == 0, (r.stdout + r.stderr).strip()
