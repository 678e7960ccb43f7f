#!/usr/bin/python3
"""The C ABI of a library with CPU and CUDA code (--target cpu,cuda), its CUDA path run by
the host emulation (--cuda-emulate): the tensors' device picks the path, run_on_stream
takes a stream, every tensor must be on one device, and calls from several threads at
once on the CUDA path give the right results.  Exit 77 without numpy.

usage: test_emulated_abi.py SHAPEC SOURCE_DIR"""
import ctypes
import os
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/, for tap
import tap  # noqa: E402

try:
    import numpy as np
except ImportError:
    tap.skip("numpy is not installed")

shapec, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "tools"))
from shapec_tools.model_library import Device, DType, Tensor  # noqa: E402

checks = tap.Checks()
check = checks.check


def tensors(arrays, device_type, device_id=0, keep=None):
    out = []
    for a in arrays:
        shape = (ctypes.c_int64 * a.ndim)(*a.shape)
        keep += [shape, a]
        out.append(Tensor(a.ctypes.data, Device(device_type, device_id), a.ndim, DType(2, 32, 1), shape, None, 0))
    return (Tensor * len(out))(*out)


tut = os.path.join(src, "examples", "tutorial")
with tempfile.TemporaryDirectory() as tmp:
    r = subprocess.run([shapec, "export", os.path.join(tut, "model.json"), "--dynamic", os.path.join(tut, "spec.json"),
                        "-o", tmp, "-q", "--target", "cpu,cuda", "--cuda-emulate"], capture_output=True, text=True)
    check(r.returncode == 0, f"exports with --target cpu,cuda --cuda-emulate {r.stderr.strip()[-300:]}")
    lib = ctypes.CDLL(os.path.join(tmp, "model.so"))
    lib.shapec_model_cuda_arch.restype = ctypes.c_char_p
    check(lib.shapec_model_targets() == 3, "shapec_model_targets() is CPU | CUDA")
    check(lib.shapec_model_cuda_arch() == b"host-emulation", "shapec_model_cuda_arch() says host-emulation")
    lib.shapec_model_input_name.restype = ctypes.c_char_p
    names = [lib.shapec_model_input_name(i).decode() for i in range(lib.shapec_model_num_inputs())]
    rng = np.random.default_rng(0)
    dims = {"w": (6, 5), "x": (4,), "y": (8, 4), "z": (32,)}
    ins = [rng.standard_normal(dims[n]).astype(np.float32) for n in names]
    err = ctypes.create_string_buffer(1024)

    def run(device_type, stream=None, out_device_id=0):
        keep = []
        outs = [np.full((6, 3), np.nan, np.float32), np.full((32,), np.nan, np.float32)]
        t_in = tensors(ins, device_type, 0, keep)
        t_out = tensors(outs, device_type, out_device_id, keep)
        if stream is None:
            rc = lib.shapec_model_run(t_in, t_out, err, 1024)
        else:
            rc = lib.shapec_model_run_on_stream(t_in, t_out, ctypes.c_void_p(stream), err, 1024)
        return rc, outs

    rc, cpu = run(1)
    check(rc == 0, f"CPU tensors run on the CPU path {err.value.decode()}")
    rc, cuda = run(2)
    check(rc == 0 and all(np.allclose(a, b, rtol=1e-5, atol=1e-6) for a, b in zip(cpu, cuda)),
          f"CUDA tensors run on the CUDA path and give the CPU's results {err.value.decode()}")
    rc, streamed = run(2, stream=0x1234)
    check(rc == 0 and all(np.allclose(a, b, rtol=1e-5, atol=1e-6) for a, b in zip(cpu, streamed)),
          f"shapec_model_run_on_stream runs the CUDA path {err.value.decode()}")
    rc, _ = run(1, stream=0x1234)
    check(rc == 2 and b"a CUDA stream was given" in err.value, f"a stream with CPU tensors is refused: {err.value.decode()}")
    rc, _ = run(2, out_device_id=1)
    check(rc == 2 and b"pass every tensor of a call on one device" in err.value,
          f"tensors on two devices are refused: {err.value.decode()}")

    # several threads on the CUDA path at once: each call has its own state
    results, lock = [], threading.Lock()

    def worker(seed):
        local_err = ctypes.create_string_buffer(1024)
        for _ in range(20):
            keep = []
            outs = [np.full((6, 3), np.nan, np.float32), np.full((32,), np.nan, np.float32)]
            rc = lib.shapec_model_run(tensors(ins, 2, 0, keep), tensors(outs, 2, 0, keep), local_err, 1024)
            ok = rc == 0 and all(np.allclose(a, b, rtol=1e-5, atol=1e-6) for a, b in zip(cpu, outs))
            with lock:
                results.append(ok)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check(len(results) == 80 and all(results), f"4 threads x 20 calls on the CUDA path at once: {sum(results)} of 80 right")

sys.exit(checks.finish())
