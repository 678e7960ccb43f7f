"""_abi.py - the C ABI of a shapec model library (include/shapec/runtime.h) as ctypes types."""
import ctypes

ERR_SHAPE, ERR_ARGUMENT, ERR_MEMORY, ERR_CPU, ERR_WEIGHTS, ERR_CUDA = 1, 2, 3, 4, 5, 6
TARGET_CPU, TARGET_CUDA = 1, 2
KDL_CPU = 1

# DLPack dtype codes: (code, bits) <-> NumPy dtype names
_DTYPES = {(2, 32): "float32", (2, 64): "float64", (2, 16): "float16", (0, 64): "int64", (0, 32): "int32",
           (0, 16): "int16", (0, 8): "int8", (1, 8): "uint8", (6, 8): "bool"}
DTYPE_OF_NAME = {v: k for k, v in _DTYPES.items()}


class Device(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class Tensor(ctypes.Structure):
    """shapec_tensor, DLPack's DLTensor layout."""
    _fields_ = [("data", ctypes.c_void_p), ("device", Device), ("ndim", ctypes.c_int32), ("dtype", DType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


def dtype_name(packed):
    """The NumPy dtype name of the library's packed dtype, (code << 8) | bits."""
    return _DTYPES.get((packed >> 8, packed & 0xFF))


def declare(lib):
    """Declares the entry points' signatures on a ctypes.CDLL."""
    c_int, c_char_p, c_size_t = ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t
    sigs = {
        "shapec_model_num_inputs": (c_int, []), "shapec_model_num_outputs": (c_int, []),
        "shapec_model_input_name": (c_char_p, [c_int]), "shapec_model_output_name": (c_char_p, [c_int]),
        "shapec_model_input_ndim": (c_int, [c_int]), "shapec_model_output_ndim": (c_int, [c_int]),
        "shapec_model_input_dtype": (c_int, [c_int]), "shapec_model_output_dtype": (c_int, [c_int]),
        "shapec_model_report": (c_char_p, []), "shapec_model_cpu_features": (c_char_p, []),
        "shapec_model_targets": (c_int, []),
        "shapec_model_set_num_threads": (c_int, [c_int]), "shapec_model_get_num_threads": (c_int, []),
        "shapec_model_output_shapes": (c_int, [ctypes.POINTER(Tensor), ctypes.POINTER(ctypes.POINTER(ctypes.c_int64)),
                                               ctypes.c_char_p, c_size_t]),
        "shapec_model_run": (c_int, [ctypes.POINTER(Tensor), ctypes.POINTER(Tensor), ctypes.c_char_p, c_size_t]),
    }
    for name, (restype, argtypes) in sigs.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
