"""model.py - a library that `shapec export` built, called on NumPy arrays or torch tensors."""
import collections
import ctypes
import json
import os

import numpy as np

from . import _abi
from . import observations as _observations


class ShapecError(RuntimeError):
    """A call the library refused; `code` is its return code (shapec/runtime.h)."""

    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


class GuardError(ShapecError, AssertionError):
    """The inputs do not fit the program (SHAPEC_ERR_SHAPE): the message is torch's
    (`Guard failed: x.size()[0] <= 100`) with shapec's explanation.  Also an
    AssertionError, as ep.module() raises one."""


TensorInfo = collections.namedtuple("TensorInfo", ["name", "dtype", "shape"])
TensorInfo.__doc__ = """An input or output as the library declares it: its name, NumPy dtype name, and
shape: ints for static sizes, the program's symbols ("s0", "s2*s3") for dynamic ones,
() for a 0-d input (a scalar argument), as ONNX Runtime's get_inputs() gives them."""


WeightInfo = collections.namedtuple("WeightInfo", ["name", "kind", "dtype", "shape"])
WeightInfo.__doc__ = """A weight the program reads: its state_dict name, "parameter", "buffer" or
"constant", torch's dtype name, and its shape (ints)."""


def _is_torch(x):
    return type(x).__module__.split(".")[0] == "torch"


class _BF16:
    """A host bfloat16 tensor as the library reads it: its bit patterns in a C-ordered
    uint16 array (NumPy has no bfloat16; torch's bfloat16 tensors and ml_dtypes' arrays
    are viewed as such bits, never converted)."""

    def __init__(self, bits):
        self.bits = np.ascontiguousarray(bits, np.uint16)
        self.ndim, self.shape = self.bits.ndim, self.bits.shape


def _ml_dtypes():
    try:
        import ml_dtypes
        return ml_dtypes
    except ImportError:
        return None


def _bf16_input(x):
    """A bfloat16 tensor or array given for a bfloat16 input, as _BF16; None for anything
    else (the library then refuses it, naming both dtypes)."""
    if _is_torch(x) and str(x.dtype) == "torch.bfloat16":
        import torch
        return _BF16(x.detach().contiguous().view(torch.int16).numpy().view(np.uint16))
    if isinstance(x, np.ndarray) and x.dtype.name == "bfloat16":  # ml_dtypes
        return _BF16(np.ascontiguousarray(x).view(np.uint16))
    return None


def _bf16_output(bits, torch_in):
    """A bfloat16 output for the caller: a torch bfloat16 tensor when torch tensors came
    in, an ml_dtypes bfloat16 array where ml_dtypes is installed, else float32 values
    (which hold every bfloat16 exactly)."""
    if torch_in:
        import torch
        return torch.from_numpy(bits.view(np.int16)).view(torch.bfloat16)
    ml = _ml_dtypes()
    if ml is not None:
        return bits.view(ml.bfloat16)
    return (bits.astype(np.uint32) << 16).view(np.float32)


class Model:
    """A loaded model library, opened with RTLD_LOCAL, so that several models, or several
    exports of one model, live side by side in a process.  The same file loaded twice is
    one library (one instance per path): its threads, state and weights are shared."""

    def __init__(self, path, record_shapes=None, weights=None):
        self.path = os.path.abspath(path)
        self.record_shapes = record_shapes  # observations each call's input shapes go to, or None
        self._dll = ctypes.CDLL(self.path, mode=os.RTLD_LOCAL | os.RTLD_NOW)
        self._lib = _abi.declare(self._dll)  # shapec_model_* or, with --name, shapec_NAME_*
        lib = self._lib
        n_in, n_out = lib.num_inputs(), lib.num_outputs()
        self.input_names = [lib.input_name(i).decode() for i in range(n_in)]
        self.output_names = [lib.output_name(i).decode() for i in range(n_out)]
        self.input_dtypes = [_abi.dtype_name(lib.input_dtype(i)) for i in range(n_in)]
        self.output_dtypes = [_abi.dtype_name(lib.output_dtype(i)) for i in range(n_out)]
        self._in_ndim = [lib.input_ndim(i) for i in range(n_in)]
        self._out_ndim = [lib.output_ndim(i) for i in range(n_out)]
        self.targets = lib.targets()  # _abi.TARGET_CPU | _abi.TARGET_CUDA
        self.cuda_arch = lib.cuda_arch().decode() if self.targets & _abi.TARGET_CUDA else None
        # a CUDA-only library exported with --cuda-emulate computes on host memory passed as
        # CUDA tensors: NumPy arrays stand for device memory there (docs/cuda.md, emulation)
        self._host_is_device = self.cuda_arch == "host-emulation" and not self.targets & _abi.TARGET_CPU
        if weights is not None:
            self.load_weights(weights)

    def __repr__(self):
        return f"shapec.Model({self.path!r}, inputs={self.input_names}, outputs={self.output_names})"

    @property
    def report(self):
        """The export's report (constraints.json) embedded in the library, as a dict."""
        return json.loads(self._lib.report().decode())

    @property
    def cpu_features(self):
        return self._lib.cpu_features().decode()

    def set_num_threads(self, n):
        """Threads for this library's kernels and GEMMs, the caller's included (0 restores
        the default: SHAPEC_NUM_THREADS, else every CPU).  Returns the count in effect."""
        return self._lib.set_num_threads(int(n))

    def get_num_threads(self):
        return self._lib.get_num_threads()

    # ---- inputs -------------------------------------------------------------------------

    def _arrays(self, args, kwargs, keep_strides=False):
        """The inputs in the library's order, and the device they are on (None: host).
        Host inputs become C-ordered NumPy arrays (a strided array or tensor is copied
        once); CUDA tensors stay torch tensors, made contiguous, and a Python number for a
        0-d input goes to their device."""
        given = self._given(args, kwargs)
        arrays, device, torch_in = [], None, False
        for name, dtype, ndim in zip(self.input_names, self.input_dtypes, self._in_ndim):
            x = given[name]
            if dtype == "bfloat16" and not (_is_torch(x) and x.device.type == "cuda"):
                bf = _bf16_input(x)
                if bf is not None:
                    torch_in = torch_in or _is_torch(x)
                    arrays.append(bf)
                    continue
            if _is_torch(x):
                torch_in = True
                if x.device.type == "cuda":
                    device = device or x.device
                    arrays.append(x.detach().contiguous())
                    continue
                if x.device.type != "cpu":
                    raise ShapecError(f"input {name!r} is on {x.device}; shapec computes on CPU and CUDA tensors",
                                      _abi.ERR_ARGUMENT)
                try:  # DLPack: a view of the tensor's memory
                    x = np.from_dlpack(x.detach())
                except (AttributeError, TypeError, RuntimeError, BufferError):  # older NumPy, or bool
                    x = x.detach().numpy()
            arrays.append(_host_array(x, ndim, dtype, keep_strides and not self._host_is_device))
        if device is not None:
            import torch
            for k, (name, a) in enumerate(zip(self.input_names, arrays)):
                if isinstance(a, (np.ndarray, _BF16)):
                    if a.ndim:
                        cuda_name = next(n for n, b in zip(self.input_names, arrays) if not isinstance(b, (np.ndarray, _BF16)))
                        raise ShapecError(f"input {name!r} is on the CPU but {cuda_name!r} is on {device}: pass every "
                                          "input on one device", _abi.ERR_ARGUMENT)
                    arrays[k] = torch.from_numpy(a).to(device)
        if self.record_shapes:  # before the guards: shapes the library refuses are recorded too
            self._record(arrays)
        return arrays, device, torch_in

    def _given(self, args, kwargs):
        if len(args) > len(self.input_names):
            raise TypeError(f"the model takes {len(self.input_names)} inputs ({', '.join(self.input_names)}), "
                            f"{len(args)} given")
        given = dict(zip(self.input_names, args))
        for k, v in kwargs.items():
            if k not in self.input_names:
                raise TypeError(f"the model has no input named {k!r} (inputs: {', '.join(self.input_names)})")
            if k in given:
                raise TypeError(f"input {k!r} given twice")
            given[k] = v
        missing = [n for n in self.input_names if n not in given]
        if missing:
            raise TypeError(f"missing input(s): {', '.join(missing)}")
        return given

    def _record(self, arrays):
        report = self.report
        scalars = {i["name"] for i in report["inputs"] if "value_kind" in i}
        _observations.record_shapes(self.record_shapes,
                                    {n: a.bits if isinstance(a, _BF16) else a for n, a in zip(self.input_names, arrays)},
                                    model_sha256=report.get("model_sha256"), scalars=scalars)

    def _tensor(self, a, keep, strided=False):
        """The shapec_tensor of a NumPy array (host memory) or a torch CUDA tensor; with
        `strided`, a non-contiguous NumPy array is passed with its strides."""
        if isinstance(a, _BF16):
            name, data = "bfloat16", a.bits.ctypes.data
            device = _abi.Device(_abi.KDL_CUDA if self._host_is_device else _abi.KDL_CPU, 0)
        elif isinstance(a, np.ndarray):
            name, data = a.dtype.name, a.ctypes.data
            device = _abi.Device(_abi.KDL_CUDA if self._host_is_device else _abi.KDL_CPU, 0)
        else:
            name, data = str(a.dtype).split(".")[-1], a.data_ptr()
            device = _abi.Device(_abi.KDL_CUDA, a.device.index or 0)
        code_bits = _abi.DTYPE_OF_NAME.get(name)
        if code_bits is None:
            raise TypeError(f"dtype {name} is not one shapec takes")
        shape = (ctypes.c_int64 * max(1, a.ndim))(*a.shape)
        keep += [shape, a]
        strides = None
        if strided and isinstance(a, np.ndarray) and a.ndim:
            given = [st // a.itemsize for st in a.strides]
            compact = [int(np.prod(a.shape[k + 1:], dtype=np.int64)) for k in range(a.ndim)]
            if given != compact:  # NumPy calls an empty view contiguous: its strides still say where it grows
                strides = (ctypes.c_int64 * a.ndim)(*given)
                keep.append(strides)
        return _abi.Tensor(data, device, a.ndim, _abi.DType(*code_bits, 1), shape, strides, 0)

    def _fail(self, rc, err):
        message = err.value.decode(errors="replace")
        raise (GuardError if rc == _abi.ERR_SHAPE else ShapecError)(message, rc)

    def _shapes(self, ins, err):
        n_out = len(self.output_names)
        shapes = [(ctypes.c_int64 * max(1, nd))() for nd in self._out_ndim]
        ptrs = (ctypes.POINTER(ctypes.c_int64) * max(1, n_out))(
            *[ctypes.cast(s, ctypes.POINTER(ctypes.c_int64)) for s in shapes])
        rc = self._lib.output_shapes(ins, ptrs, err, len(err))
        if rc:
            self._fail(rc, err)
        return [tuple(s[k] for k in range(nd)) for s, nd in zip(shapes, self._out_ndim)]

    # ---- calls ---------------------------------------------------------------------------

    def output_shapes(self, *args, **kwargs):
        """The outputs' shapes for these inputs, after every check the library makes."""
        arrays, _, _ = self._arrays(args, kwargs)
        keep = []
        ins = (_abi.Tensor * max(1, len(arrays)))(*[self._tensor(a, keep) for a in arrays])
        return self._shapes(ins, ctypes.create_string_buffer(4096))

    def __call__(self, *args, **kwargs):
        """Runs the model: NumPy arrays out for NumPy inputs, torch tensors (sharing the
        arrays' memory through DLPack) when an input was a torch tensor.  On CUDA tensors
        the outputs are CUDA tensors on the same device, and the work is enqueued on
        torch's current stream, ordered after what torch queued there before, as a
        torch operator is.  One output is returned alone, several as a tuple.  A program
        that updates buffers (a KV cache) works on the library's own state (Model.state);
        Model.new_state() gives states of their own."""
        return self._call(args, kwargs, None)

    @property
    def weights(self):
        """[WeightInfo] of the weights the program reads: what a safetensors file for
        load_weights must hold."""
        if not _abi._has(self._dll, self._lib.prefix + "load_weights"):
            return []
        out, info = [], _abi.WeightInfo()
        for i in range(self._lib.num_weights()):
            if self._lib.weight(i, ctypes.byref(info)) == 0:
                out.append(WeightInfo(info.name.decode(), info.kind.decode(),
                                      _abi.dtype_name(info.code << 8 | info.bits), tuple(info.shape[:info.ndim])))
        return out

    def load_weights(self, path):
        """Replaces the weights by a safetensors file's (model.state_dict() as safetensors
        saves it: the same names, dtypes and shapes; checked), before the first call, in a
        library exported with --external-weights.  Raises ShapecError with the library's
        message (the file, the tensor, what differs) when the file does not fit."""
        if not _abi._has(self._dll, self._lib.prefix + "load_weights"):
            raise ShapecError("this library predates replaceable weights (shapec 0.75): export it again", 2)
        err = ctypes.create_string_buffer(4096)
        rc = self._lib.load_weights(os.fsencode(path), err, len(err))
        if rc:
            raise ShapecError(err.value.decode(errors="replace"), rc)

    @property
    def metadata(self):
        """What `shapec export --metadata KEY=VALUE` gave: {KEY: VALUE} (strings)."""
        return dict(self.report.get("metadata", {}))

    @property
    def inputs(self):
        """[TensorInfo] in the call's order: name, dtype and symbolic shape of each input."""
        declared = {i["name"]: i for i in self.report.get("inputs", [])}
        return [TensorInfo(name, dtype, tuple(declared.get(name, {}).get("shape") or ()) if ndim else ())
                for name, dtype, ndim in zip(self.input_names, self.input_dtypes, self._in_ndim)]

    @property
    def outputs(self):
        """[TensorInfo] in the outputs' order, as inputs gives them."""
        declared = {o["name"]: o for o in self.report.get("outputs", [])}
        return [TensorInfo(name, dtype, tuple(declared.get(name, {}).get("shape") or ()) if ndim else ())
                for name, dtype, ndim in zip(self.output_names, self.output_dtypes, self._out_ndim)]

    @property
    def output_grows(self):
        """The outputs that may grow in place over an input (a KV cache passed in and
        out, present = cat([past, new], dim)): {output name: (input name, dim)}."""
        if not _abi._has(self._dll, self._lib.prefix + "output_grows"):
            return {}
        grows, dim = {}, ctypes.c_int(0)
        for i, name in enumerate(self.output_names):
            k = self._lib.output_grows(i, ctypes.byref(dim))
            if k >= 0:
                grows[name] = (self.input_names[k], dim.value)
        return grows

    def run(self, *args, out=None, **kwargs):
        """As calling the model, with the outputs written into `out` where given: one entry
        per output, None (a new array) or a NumPy array of the output's shape and dtype,
        which may be a strided view.  Host inputs are passed with their strides, not
        copied.  A KV cache passed in and out (past_key_values_* inputs, their presents
        among the outputs) grows in place when each present is a view of the same buffer
        as its past, with the same strides and room for the new rows (docs/abi.md, "A
        cache that grows in place"): the library then writes only the new rows.  An input
        named `out` is passed positionally.  Returns the outputs, as calling does."""
        if out is None:
            return self._call(args, kwargs, None)
        out = list(out)
        if len(out) != len(self.output_names):
            raise TypeError(f"out has {len(out)} entries; the model has {len(self.output_names)} outputs "
                            f"({', '.join(self.output_names)})")
        return self._call(args, kwargs, None, out)

    # ---- state -----------------------------------------------------------------------------

    @property
    def state_names(self):
        """The buffers the program updates from call to call (a KV cache's), in order."""
        if not _abi._has(self._dll, self._lib.prefix + "num_states"):
            return []
        return [self._lib.state_name(i).decode() for i in range(self._lib.num_states())]

    @property
    def state(self):
        """The library's own state: the one plain calls update."""
        return State(self, None)

    def new_state(self):
        """A state of its own, starting from the exported values: call it as the model
        (st(ids, pos)) to run on it.  Two states are two independent conversations; one
        state serves one call at a time."""
        if not _abi._has(self._dll, self._lib.prefix + "state_new"):
            raise ShapecError(f"{self.path} was built by a shapec without state handles; export it again",
                              _abi.ERR_ARGUMENT)
        handle = self._lib.state_new()
        if not handle:
            raise MemoryError("shapec_model_state_new: out of memory")
        return State(self, handle)

    def _call(self, args, kwargs, state_handle, out=None):
        arrays, device, torch_in = self._arrays(args, kwargs, keep_strides=out is not None)
        if device is not None and not self.targets & _abi.TARGET_CUDA:
            raise ShapecError(f"{self.path} has no CUDA code (export with --target cuda or cpu,cuda); "
                              "pass CPU tensors or NumPy arrays", _abi.ERR_ARGUMENT)
        keep = []
        ins = (_abi.Tensor * max(1, len(arrays)))(*[self._tensor(a, keep, out is not None) for a in arrays])
        err = ctypes.create_string_buffer(4096)
        shapes = self._shapes(ins, err)
        if out is not None:
            if device is not None:
                raise ShapecError("out= takes host arrays; CUDA calls allocate their outputs", _abi.ERR_ARGUMENT)
            outs_buf = []
            for name, shape, dtype, o in zip(self.output_names, shapes, self.output_dtypes, out):
                if o is None:
                    o = _BF16(np.empty(shape, np.uint16)) if dtype == "bfloat16" else np.empty(shape, dtype)
                elif not isinstance(o, np.ndarray) or o.dtype != np.dtype(dtype) or tuple(o.shape) != tuple(shape):
                    raise ShapecError(f"out for output {name!r} must be a NumPy {dtype} array of shape {tuple(shape)}",
                                      _abi.ERR_ARGUMENT)
                elif not (o.flags.writeable and o.flags.aligned and o.dtype.isnative) or \
                        any(st % o.itemsize for st in o.strides):
                    raise ShapecError(f"out for output {name!r} must be writeable, aligned and in native byte order",
                                      _abi.ERR_ARGUMENT)
                outs_buf.append(o)
        elif device is not None:
            import torch
            outs_buf = [torch.empty(shape, dtype=getattr(torch, dtype), device=device)
                        for shape, dtype in zip(shapes, self.output_dtypes)]
        else:
            outs_buf = [_BF16(np.empty(shape, np.uint16)) if dtype == "bfloat16" else np.empty(shape, dtype)
                        for shape, dtype in zip(shapes, self.output_dtypes)]
        outs = (_abi.Tensor * max(1, len(outs_buf)))(*[self._tensor(o, keep, out is not None) for o in outs_buf])
        if device is not None:
            stream = torch.cuda.current_stream(device).cuda_stream
            rc = self._lib.run_on_stream(ins, outs, ctypes.c_void_p(stream), err, len(err))
        elif state_handle is not None:
            rc = self._lib.run_with_state(state_handle, ins, outs, err, len(err))
        else:
            rc = self._lib.run(ins, outs, err, len(err))
        if rc:
            self._fail(rc, err)
        if device is not None:
            result = outs_buf
        elif torch_in:
            import torch
            result = [_bf16_output(o.bits, True) if isinstance(o, _BF16) else _to_torch(torch, o) for o in outs_buf]
        else:
            result = [_bf16_output(o.bits, False) if isinstance(o, _BF16) else o for o in outs_buf]
        return result[0] if len(result) == 1 else tuple(result)


class State:
    """The buffers a program updates (a KV cache): Model.state (the library's own) or
    Model.new_state() (a handle of its own, freed with close() or when collected).
    st[name] is a NumPy array sharing the state's memory (read it, or write into it
    between calls); st[name] = array copies values in; st.reset() returns to the exported
    values; st(*inputs) runs the model on this state."""

    def __init__(self, model, handle):
        self._model = model
        self._handle = handle  # None: the library's own state

    @property
    def names(self):
        return self._model.state_names

    def _live(self):
        if self._handle is not None and not self._handle:
            raise ShapecError("this state was closed", _abi.ERR_ARGUMENT)
        return ctypes.c_void_p(self._handle) if self._handle is not None else None

    def __call__(self, *args, **kwargs):
        handle = self._live()
        if handle is None:
            return self._model._call(args, kwargs, None)
        return self._model._call(args, kwargs, handle)

    def reset(self):
        rc = self._model._lib.state_reset(self._live())
        if rc:
            raise ShapecError("shapec_model_state_reset refused the state", rc)

    def __getitem__(self, name):
        names = self.names
        if name not in names:
            raise KeyError(f"{name!r} is not a state buffer of {self._model.path}; they are {names}")
        t = _abi.Tensor()
        rc = self._model._lib.state_tensor(self._live(), names.index(name), ctypes.byref(t))
        if rc:
            raise ShapecError(f"shapec_model_state_tensor refused {name!r}", rc)
        shape = tuple(t.shape[k] for k in range(t.ndim))
        dtype = _abi.dtype_name((t.dtype.code << 8) | t.dtype.bits)
        count = int(np.prod(shape)) if shape else 1
        size = np.dtype(dtype if dtype != "bfloat16" else np.uint16).itemsize
        buf = (ctypes.c_char * (count * size)).from_address(t.data)
        buf.state = self  # the array's base keeps the handle alive as long as the view
        return np.frombuffer(buf, dtype=dtype if dtype != "bfloat16" else np.uint16).reshape(shape)

    def __setitem__(self, name, value):
        view = self[name]
        view[...] = np.asarray(value, dtype=view.dtype).reshape(view.shape)

    def close(self):
        if self._handle:
            self._model._lib.state_free(ctypes.c_void_p(self._handle))
        self._handle = 0 if self._handle is not None else None

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - the library may be gone at interpreter exit
            pass


def _host_array(x, ndim, dtype, keep_strides=False):
    """x as the library reads it: a C-ordered, aligned NumPy array in this machine's byte
    order, of the same rank (a Python int, float or bool, or a 0-d array, stays 0-d).  A
    strided (unless keep_strides: then passed with its strides), misaligned or
    byte-swapped array is copied once; a 0-d input of another dtype is converted to the
    model's, as torch converts a Python number."""
    a = np.asarray(x)
    if not a.dtype.isnative:  # big-endian data on a little-endian machine: the library reads native order
        a = a.astype(a.dtype.newbyteorder("="))
    if a.ndim == 0 and ndim == 0 and dtype and a.dtype != np.dtype(dtype):
        a = a.astype(dtype)
    if keep_strides and a.flags.aligned and not any(st % a.itemsize for st in a.strides):
        return a
    if not (a.flags.c_contiguous and a.flags.aligned):
        a = a.copy(order="C")  # not np.ascontiguousarray, which makes a 0-d array 1-d
    return a


def _to_torch(torch, a):
    try:  # DLPack: the tensor shares the array's memory
        return torch.from_dlpack(a)
    except (AttributeError, TypeError, RuntimeError, BufferError):  # older torch, or bool
        return torch.from_numpy(a)


def load(path, record_shapes=None, weights=None):
    """Loads OUTDIR/model.so (what `shapec export` wrote) as a callable Model.  With
    record_shapes (an observations file, or a folder for rank-<RANK>.json), every call
    appends its input shapes there first (docs/observations.md).  With weights (a
    safetensors file), the library computes with those instead of the exported ones
    (Model.load_weights)."""
    return Model(path, record_shapes, weights)
