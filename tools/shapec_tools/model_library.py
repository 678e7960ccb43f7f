"""A shapec model library (model.so) called in-process through its C ABI with ctypes
(include/shapec/runtime.h, docs/abi.md), for the benchmarks and tests.  float32 tensors.
Users have the package python/shapec (docs/python.md)."""
import ctypes

import numpy as np


class Device(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class Tensor(ctypes.Structure):
    """shapec_tensor: DLPack's DLTensor layout."""
    _fields_ = [("data", ctypes.c_void_p), ("device", Device), ("ndim", ctypes.c_int32), ("dtype", DType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.c_void_p), ("byte_offset", ctypes.c_uint64)]


# DLPack's (code, bits) of the dtypes a bench input may have: token ids, masks, floats
DLPACK = {np.dtype(np.float32): (2, 32), np.dtype(np.int64): (0, 64), np.dtype(np.int32): (0, 32),
          np.dtype(np.bool_): (6, 8)}


def as_tensor(a, keep):
    """A Tensor viewing the array a, float32 or one of DLPACK's dtypes (any other is
    converted to float32; a non-contiguous one is copied into C order first: the library
    reads compact row-major memory); keep holds what must outlive the call.  Outputs are
    allocated C-ordered, so they are never copied."""
    a = np.asarray(a)  # a torch tensor too
    a = np.ascontiguousarray(a if a.dtype in DLPACK else a.astype(np.float32))
    shape = (ctypes.c_int64 * max(1, a.ndim))(*a.shape)
    keep += [shape, a]  # the library reads a's memory by address
    code, bits = DLPACK[a.dtype]
    return Tensor(a.ctypes.data, Device(1, 0), a.ndim, DType(code, bits, 1), shape, None, 0)


class ModelLibrary:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        self.n_out = self.lib.shapec_model_num_outputs()

    def set_num_threads(self, n):
        return self.lib.shapec_model_set_num_threads(n)

    def prepare(self, arrays):
        """Checks the inputs and allocates the outputs; returns (run, outputs): run() computes
        into outputs and returns the library's code."""
        keep = []
        ins = (Tensor * len(arrays))(*[as_tensor(a, keep) for a in arrays])
        shapes = [(ctypes.c_int64 * 16)() for _ in range(self.n_out)]
        ptrs = (ctypes.POINTER(ctypes.c_int64) * self.n_out)(*[ctypes.cast(s, ctypes.POINTER(ctypes.c_int64)) for s in shapes])
        err = ctypes.create_string_buffer(1024)
        if self.lib.shapec_model_output_shapes(ins, ptrs, err, 1024):
            raise RuntimeError(err.value.decode())
        outs_np = [np.full([shapes[i][k] for k in range(self.lib.shapec_model_output_ndim(i))], np.nan, np.float32)
                   for i in range(self.n_out)]
        outs = (Tensor * self.n_out)(*[as_tensor(o, keep) for o in outs_np])
        keep += [ins, outs, err, outs_np]  # the library writes into outs_np

        def run():
            rc = self.lib.shapec_model_run(ins, outs, err, 1024)
            if rc:
                raise RuntimeError(err.value.decode())
            return rc

        run.keep = keep  # the buffers live as long as run does
        return run, outs_np
