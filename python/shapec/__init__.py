"""shapec - call a library that `shapec export` built from Python.

    import shapec
    m = shapec.load("shapec-out/model.so")
    y = m(x)                      # NumPy arrays or torch tensors in, the same kind out
    m.output_shapes(x)            # every check, no computation
    m.set_num_threads(2)

    m = shapec.load("shapec-out/model.so", record_shapes="obs/")  # every call's shapes
    shapec.record_shapes("obs/", {"x": x, "n": 5})                # or by hand

A guard the inputs fail raises shapec.GuardError (an AssertionError, as ep.module()
raises) with torch's message and shapec's explanation.  Pure Python (ctypes); see
docs/python.md."""
from .cli import ExportError, export, spec_infer
from .model import GuardError, Model, ShapecError, State, TensorInfo, WeightInfo, load
from .observations import record_shapes

__version__ = "0.1.0"  # the shapec release this package belongs to (`shapec --version`)

__all__ = ["load", "Model", "State", "TensorInfo", "WeightInfo", "ShapecError", "GuardError", "ExportError", "export", "spec_infer",
           "record_shapes", "__version__"]
