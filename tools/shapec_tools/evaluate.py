"""The reference evaluator: runs a serialized program (shapec's input format) with
PyTorch's own torch.ops.aten operators.  It is the numerics oracle of every later test, so
it interprets the file literally -- no rewriting, no fusion -- and refuses what it does not
understand."""
import json
import math
import operator

import torch

from . import files


class EvalError(Exception):
    pass


_PY_OPS = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "floordiv": operator.floordiv,
           "mod": operator.mod, "neg": operator.neg, "pos": operator.pos, "eq": operator.eq, "ne": operator.ne,
           "lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge, "and_": operator.and_,
           "or_": operator.or_, "not_": operator.not_, "truediv": operator.truediv, "pow": operator.pow,
           "getitem": operator.getitem}
_MEMORY_FORMATS = {1: torch.contiguous_format, 2: torch.channels_last, 3: torch.channels_last_3d,
                   4: torch.preserve_format}


def _batch_norm_no_training(input, weight, bias, running_mean, running_var, momentum, eps):
    """torch 2.x's _native_batch_norm_legit_no_training on PyTorch versions without it."""
    out = torch.ops.aten.native_batch_norm.default(input, weight, bias, running_mean, running_var, False,
                                                    momentum, eps)[0]
    return out, input.new_empty(0), input.new_empty(0)


def _resolve(target):
    if target.startswith("_operator."):
        return _PY_OPS[target[len("_operator."):]], None
    if target == "torch.ops.aten._assert_scalar.default":
        return None, None
    if target == "torch.ops.aten._native_batch_norm_legit_no_training.default" and not hasattr(
            torch.ops.aten, "_native_batch_norm_legit_no_training"):
        return _batch_norm_no_training, None
    if target == "torch.ops.aten.sym_size.int" and not hasattr(torch.ops.aten.sym_size, "int"):
        return (lambda t, d: t.size(d)), None
    if target == "torch.ops.aten.sym_numel.default" and not hasattr(torch.ops.aten.sym_numel, "default"):
        return (lambda t: t.numel()), None
    if not target.startswith("torch.ops."):
        raise EvalError(f"unknown target {target}")
    ns, name, overload = target[len("torch.ops."):].split(".")
    try:
        op = getattr(getattr(getattr(torch.ops, ns), name), overload)
    except (AttributeError, RuntimeError) as e:
        raise EvalError(f"PyTorch {torch.__version__} has no operator {target}") from e
    return op, op._schema


class Evaluator:
    def __init__(self, program, weights):
        self.program, self.weights = program, weights
        self.graph = program["graph_module"]["graph"]
        self.env = {}

    def value(self, arg):
        (kind, v), = arg.items()
        if kind == "as_none":
            return None
        if kind == "as_tensor":
            return self.env[v["name"]]
        if kind == "as_tensors":
            return [self.env[t["name"]] for t in v]
        if kind == "as_optional_tensors":
            return [None if "as_none" in t else self.env[t["as_tensor"]["name"]] for t in v]
        if kind == "as_optional_tensor":
            return None if "as_none" in v else self.env[v["as_tensor"]["name"]]
        if kind in ("as_int", "as_float", "as_bool", "as_string", "as_ints", "as_bools", "as_strings"):
            return v
        if kind == "as_floats":
            return [float(x) for x in v]
        if kind in ("as_sym_int", "as_sym_bool", "as_sym_float"):
            (k2, x), = v.items()
            return self.env[x] if k2 == "as_name" else x
        if kind in ("as_sym_ints", "as_sym_bools", "as_sym_floats"):
            return [self.env[x["as_name"]] if "as_name" in x else next(iter(x.values())) for x in v]
        if kind == "as_scalar_type":
            return files.CODE_TO_TORCH[v]
        if kind == "as_memory_format":
            return _MEMORY_FORMATS[v]
        if kind == "as_layout":
            return torch.strided
        if kind == "as_device":
            return torch.device(v["type"]) if v.get("index") is None else torch.device(v["type"], v["index"])
        raise EvalError(f"argument kind {kind} is not supported by the reference evaluator")

    def call(self, node):
        fn, schema = _resolve(node["target"])
        named = {i["name"]: self.value(i["arg"]) for i in node["inputs"]}
        if fn is None:  # _assert_scalar: the check itself
            if not named["self"]:
                raise EvalError(f"node {node.get('name')}: {named.get('assert_msg', 'assertion failed')}")
            return None
        if schema is None:
            return fn(*[self.value(i["arg"]) for i in node["inputs"]])
        args, kwargs = [], {}
        for sarg in schema.arguments:
            if sarg.name in named:
                if sarg.kwarg_only:
                    kwargs[sarg.name] = named[sarg.name]
                else:
                    # positional arguments left out before this one take their defaults
                    while len(args) < [a.name for a in schema.arguments].index(sarg.name):
                        missing = schema.arguments[len(args)]
                        args.append(missing.default_value)
                    args.append(named[sarg.name])
        return fn(*args, **kwargs)

    def run(self, user_inputs):
        g = self.graph
        sig = self.program["graph_module"]["signature"]["input_specs"]
        users = iter(user_inputs)
        for spec, inp in zip(sig, g["inputs"]):
            (kind, s), = spec.items()
            (_, a), = inp.items()
            name = a["name"] if isinstance(a, dict) and "name" in a else None
            if kind == "user_input":
                self.env[name] = next(users)
            elif kind in ("parameter", "buffer", "tensor_constant"):
                key = s.get("parameter_name") or s.get("buffer_name") or s.get("tensor_constant_name")
                if key not in self.weights:
                    raise EvalError(f"no weight named {key}")
                self.env[name] = self.weights[key]
            else:
                raise EvalError(f"input kind {kind} is not supported by the reference evaluator")
        for node in g["nodes"]:
            result = self.call(node)
            outs = node["outputs"]
            if len(outs) == 1 and "as_tensors" not in outs[0]:
                results = [result]
            elif len(outs) == 1:
                results = list(result)
                outs = [{"as_tensor": t} for t in outs[0]["as_tensors"]]
            else:
                results = list(result)
            for out, r in zip(outs, results):
                (kind, v), = out.items()
                if kind == "as_tensor":
                    self.env[v["name"]] = r
                elif kind in ("as_sym_int", "as_sym_bool", "as_sym_float"):
                    self.env[v["as_name"]] = r
        return [self.value(o) for o in g["outputs"]]


def load(model_path, weights_path=None):
    """(program, weights) from a .json (+ safetensors) or a .pt2 archive."""
    if model_path.endswith(".pt2"):
        program, weights = files.read_pt2(model_path)
        if weights_path:
            weights = files.read_safetensors(weights_path)
        return program, weights
    with open(model_path) as f:
        program = json.load(f)
    if weights_path is None:
        candidate = model_path.rsplit(".", 1)[0] + ".safetensors"
        weights_path = candidate if _exists(candidate) else None
    return program, files.read_safetensors(weights_path) if weights_path else {}


def _exists(path):
    try:
        with open(path, "rb"):
            return True
    except OSError:
        return False


def evaluate(model_path, inputs, weights_path=None):
    program, weights = load(model_path, weights_path)
    with torch.no_grad():
        return Evaluator(program, weights).run(inputs)
