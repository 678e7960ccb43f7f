"""_abi.py - the C ABI of a shapec model library (include/shapec/runtime.h) as ctypes types."""
import ctypes

ERR_SHAPE, ERR_ARGUMENT, ERR_MEMORY, ERR_CPU, ERR_WEIGHTS, ERR_CUDA = 1, 2, 3, 4, 5, 6
TARGET_CPU, TARGET_CUDA = 1, 2
KDL_CPU, KDL_CUDA = 1, 2

# DLPack dtype codes: (code, bits) <-> NumPy dtype names
_DTYPES = {(2, 32): "float32", (2, 64): "float64", (2, 16): "float16", (4, 16): "bfloat16", (0, 64): "int64",
           (0, 32): "int32", (0, 16): "int16", (0, 8): "int8", (1, 8): "uint8", (6, 8): "bool"}
DTYPE_OF_NAME = {v: k for k, v in _DTYPES.items()}


class Device(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class WeightInfo(ctypes.Structure):
    """shapec_weight_info."""
    _fields_ = [("name", ctypes.c_char_p), ("kind", ctypes.c_char_p), ("code", ctypes.c_uint8),
                ("bits", ctypes.c_uint8), ("ndim", ctypes.c_int32), ("shape", ctypes.POINTER(ctypes.c_int64))]


class Tensor(ctypes.Structure):
    """shapec_tensor, DLPack's DLTensor layout."""
    _fields_ = [("data", ctypes.c_void_p), ("device", Device), ("ndim", ctypes.c_int32), ("dtype", DType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


def dtype_name(packed):
    """The NumPy dtype name of the library's packed dtype, (code << 8) | bits."""
    return _DTYPES.get((packed >> 8, packed & 0xFF))


def soname_stem(lib):
    """The stem of a loaded library's SONAME: "model" for shapec_model_*, NAME for a library
    exported with --name NAME (shapec_NAME_*), read from its dynamic section (dlinfo)."""
    try:
        dlinfo = ctypes.CDLL(None).dlinfo
    except AttributeError:
        return "model"
    link_map = ctypes.c_void_p()
    if dlinfo(ctypes.c_void_p(lib._handle), 2, ctypes.byref(link_map)) != 0 or not link_map.value:  # RTLD_DI_LINKMAP
        return "model"
    dyn = ctypes.c_void_p.from_address(link_map.value + 16).value  # struct link_map: l_addr, l_name, l_ld
    strtab = soname = None
    while dyn:
        tag, val = ctypes.c_int64.from_address(dyn).value, ctypes.c_uint64.from_address(dyn + 8).value
        if tag == 0:  # DT_NULL
            break
        if tag == 5:  # DT_STRTAB, relocated by the loader
            strtab = val
        elif tag == 14:  # DT_SONAME
            soname = val
        dyn += 16
    if strtab is None or soname is None:
        return "model"
    return ctypes.string_at(strtab + soname).decode().split(".so")[0]


class EntryPoints:
    """The library's shapec_<name>_* functions under their short names (lib.run, ...)."""

    def __init__(self, lib):
        self.prefix = f"shapec_{soname_stem(lib)}_"
        self._lib = lib

    def __getattr__(self, short):
        fn = getattr(self._lib, self.prefix + short)
        setattr(self, short, fn)
        return fn


def declare(lib):
    """Declares the entry points' signatures on a ctypes.CDLL; returns them by short name."""
    entry = EntryPoints(lib)
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
    if _has(lib, entry.prefix + "run_on_stream"):  # libraries with CUDA code
        sigs["shapec_model_run_on_stream"] = (c_int, [ctypes.POINTER(Tensor), ctypes.POINTER(Tensor), ctypes.c_void_p,
                                                      ctypes.c_char_p, c_size_t])
        sigs["shapec_model_cuda_arch"] = (c_char_p, [])
    if _has(lib, entry.prefix + "run_with_state"):  # state handles (libraries from shapec 0.67 on)
        state, tensor_p = ctypes.c_void_p, ctypes.POINTER(Tensor)
        sigs.update({
            "shapec_model_num_states": (c_int, []), "shapec_model_state_name": (c_char_p, [c_int]),
            "shapec_model_state_new": (state, []), "shapec_model_state_free": (None, [state]),
            "shapec_model_state_reset": (c_int, [state]),
            "shapec_model_state_tensor": (c_int, [state, c_int, tensor_p]),
            "shapec_model_run_with_state": (c_int, [state, tensor_p, tensor_p, ctypes.c_char_p, c_size_t]),
        })
    if _has(lib, entry.prefix + "get_active_threads"):  # threads adapted to busy cores (shapec 0.77 on)
        sigs["shapec_model_get_active_threads"] = (c_int, [])
    if _has(lib, entry.prefix + "metadata"):  # export --metadata (libraries from shapec 0.74 on)
        sigs["shapec_model_metadata"] = (c_char_p, [c_char_p])
    if _has(lib, entry.prefix + "output_grows"):  # caches grown in place (libraries from shapec 0.74 on)
        sigs["shapec_model_output_grows"] = (c_int, [c_int, ctypes.POINTER(c_int)])
    if _has(lib, entry.prefix + "load_weights"):  # weights replaced at load (libraries from shapec 0.75 on)
        sigs.update({
            "shapec_model_num_weights": (c_int, []),
            "shapec_model_weight": (c_int, [c_int, ctypes.POINTER(WeightInfo)]),
            "shapec_model_load_weights": (c_int, [c_char_p, c_char_p, c_size_t]),
        })
    for name, (restype, argtypes) in sigs.items():
        fn = getattr(entry, name[len("shapec_model_"):])
        fn.restype, fn.argtypes = restype, argtypes
    return entry


def _has(lib, symbol):
    try:
        getattr(lib, symbol)
        return True
    except AttributeError:
        return False
