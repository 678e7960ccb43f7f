"""Converts a PyTorch module and sample inputs into shapec's input format: the
ExportedProgram JSON (schema 8.x) plus the module's weights (safetensors) and, on request,
a .pt2 archive in torch's layout.

With PyTorch 2.1 or later it uses torch.export (with a dynamic_shapes spec when given)
and torch's own serializer and archive writer (torch.export.save).  With
PyTorch 1.13 (Debian's python3-torch) it traces a functional form of the module with
make_fx(..., tracing_mode="symbolic") -- parameters and buffers passed as inputs -- and
serializes the ATen graph itself: operator names as torch serializes them, argument
names from each operator's schema, tensor metas with the sample sizes, and size
arithmetic kept as sym_size.int and _operator nodes."""
import json
import operator
import os

import torch

from . import files

SCHEMA_VERSION = {"major": 8, "minor": 13}


class ConversionError(Exception):
    pass


def _torch_major_minor():
    parts = torch.__version__.split(".")
    return int(parts[0]), int(parts[1])


# ---- PyTorch >= 2.1: torch's own exporter and serializer ------------------------------

def _convert_with_torch_export(module, example_inputs, dynamic_shapes):
    """torch.export.export with the spec (None: static); returns the ExportedProgram, its
    JSON and its weights and tensor constants."""
    from torch._export.serde.serialize import serialize
    try:
        ep = torch.export.export(module, tuple(example_inputs), dynamic_shapes=dynamic_shapes)
    except Exception as e:  # noqa: BLE001 - torch's verdict, with its own message
        raise ConversionError(f"torch.export refuses the module: {type(e).__name__}: {e}") from e
    artifact = serialize(ep)
    program = json.loads(artifact.exported_program.decode())
    state = {**ep.state_dict, **{k: v for k, v in ep.constants.items() if isinstance(v, torch.Tensor)}}
    return ep, program, state


def load_dynamic_shapes(path, module, example_inputs):
    """A dynamic_shapes spec in the form torch serializes it (the form `shapec export
    --dynamic` reads) as the object torch.export.export takes."""
    from torch._export.serde.dynamic_shapes import _load_dynamic_shapes
    with open(path) as f:
        text = f.read()
    try:
        spec = json.loads(text)
        ds = _load_dynamic_shapes(spec, from_dict=True)
    except Exception as e:  # noqa: BLE001
        raise ConversionError(f"{path}: not a dynamic_shapes spec torch can load: {type(e).__name__}: {e}") from e
    if isinstance(ds, (list, tuple)) and len(ds) != len(example_inputs):
        raise ConversionError(f"{path}: the spec has {len(ds)} entries, the module takes {len(example_inputs)} inputs")
    return ds


# ---- PyTorch 1.13: make_fx symbolic tracing and our own serialization -----------------

_SYM_OPS = {operator.add: "add", operator.sub: "sub", operator.mul: "mul", operator.floordiv: "floordiv",
            operator.mod: "mod", operator.neg: "neg", operator.eq: "eq", operator.ne: "ne", operator.lt: "lt",
            operator.le: "le", operator.gt: "gt", operator.ge: "ge", operator.and_: "and_", operator.or_: "or_",
            operator.not_: "not_", operator.truediv: "truediv", operator.pow: "pow"}

_MEMORY_FORMATS = {torch.contiguous_format: 1, torch.channels_last: 2, torch.channels_last_3d: 3,
                   torch.preserve_format: 4}


def _op_name(target):
    """Serialized name of an OpOverload: torch.ops.aten.addmm.default."""
    ns = target.namespace if hasattr(target, "namespace") else "aten"
    return f"torch.ops.{ns}.{target._schema.name.split('::')[1]}.{target._overloadname}"


def _functional_target(target):
    """In-place ops (relu_, add_) become their functional forms: the converted graph is
    the inference graph, where nothing observes the mutation."""
    name = target._schema.name.split("::")[1]
    if name.endswith("_") and not name.endswith("__"):
        packet = getattr(torch.ops.aten, name[:-1], None)
        if packet is not None and hasattr(packet, target._overloadname):
            return getattr(packet, target._overloadname)
    return target


class _Serializer:
    def __init__(self, gm, values, user_names, state_names):
        self.gm, self.values = gm, values           # values: fx node -> concrete sample value
        self.user_names, self.state_names = user_names, state_names
        self.names = {}                             # fx node -> serialized name
        self.tensor_values, self.sym_int_values, self.sym_bool_values = {}, {}, {}
        self.nodes = []

    def name_of(self, node):
        return self.names.get(node, node.name)

    def arg(self, value, type_str):
        if isinstance(value, torch.fx.Node):
            v = self.values[value]
            if isinstance(v, torch.Tensor):
                return {"as_tensor": {"name": self.name_of(value)}}
            if isinstance(v, bool):
                return {"as_sym_bool": {"as_name": self.name_of(value)}}
            return {"as_sym_int": {"as_name": self.name_of(value)}}
        if value is None:
            return {"as_none": True}
        if isinstance(value, bool):
            return {"as_bool": value}
        if isinstance(value, int):
            return {"as_int": value}
        if isinstance(value, float):
            return {"as_float": value}
        if isinstance(value, str):
            return {"as_string": value}
        if isinstance(value, torch.dtype):
            return {"as_scalar_type": files.TORCH_TO_CODE[value]}
        if isinstance(value, torch.layout):
            return {"as_layout": 7 if value == torch.strided else 0}
        if isinstance(value, torch.device):
            return {"as_device": {"type": value.type, "index": value.index}}
        if isinstance(value, torch.memory_format):
            return {"as_memory_format": _MEMORY_FORMATS[value]}
        if isinstance(value, (list, tuple)):
            if "Tensor?" in type_str:
                return {"as_optional_tensors": [{"as_none": True} if v is None else {"as_tensor": {"name": self.name_of(v)}}
                                                for v in value]}
            if all(isinstance(v, torch.fx.Node) and isinstance(self.values[v], torch.Tensor) for v in value) and value:
                return {"as_tensors": [{"name": self.name_of(v)} for v in value]}
            if all(isinstance(v, bool) for v in value) and value:
                return {"as_bools": list(value)}
            if all(isinstance(v, int) for v in value):
                return {"as_ints": list(value)}
            if all(isinstance(v, (int, float)) for v in value):
                return {"as_floats": [float(v) for v in value]}
            return {"as_sym_ints": [{"as_name": self.name_of(v)} if isinstance(v, torch.fx.Node) else {"as_int": v}
                                    for v in value]}
        raise ConversionError(f"cannot serialize argument {value!r} of type {type_str}")

    def meta(self, name, t):
        self.tensor_values[name] = files.tensor_meta(t)

    def add_node(self, target_name, inputs, outputs, name):
        self.nodes.append({"target": target_name, "inputs": inputs, "outputs": outputs, "metadata": {}, "name": name})

    def call(self, node, getitems):
        target = node.target
        v = self.values[node]
        if target in _SYM_OPS:
            names = ("a", "b")
            inputs = [{"name": names[i], "arg": self.arg(a, "SymInt"), "kind": 1} for i, a in enumerate(node.args)]
            (self.sym_bool_values if isinstance(v, bool) else self.sym_int_values)[node.name] = self.sym_value(v)
            out_kind = "as_sym_bool" if isinstance(v, bool) else "as_sym_int"
            self.add_node(f"_operator.{_SYM_OPS[target]}", inputs, [{out_kind: {"as_name": node.name}}], node.name)
            return
        if isinstance(target, torch._ops.OpOverloadPacket) and str(target) == "aten.sym_numel":
            inputs = [{"name": "self", "arg": self.arg(node.args[0], "Tensor"), "kind": 1}]
            self.sym_int_values[node.name] = self.sym_value(v)
            self.add_node("torch.ops.aten.sym_numel.default", inputs, [{"as_sym_int": {"as_name": node.name}}], node.name)
            return
        if isinstance(target, torch._ops.OpOverloadPacket) and str(target) == "aten.sym_size":
            target = torch.ops.aten.sym_size.int if hasattr(torch.ops.aten.sym_size, "int") else target
            inputs = [{"name": "self", "arg": self.arg(node.args[0], "Tensor"), "kind": 1},
                      {"name": "dim", "arg": {"as_int": node.args[1]}, "kind": 1}]
            self.sym_int_values[node.name] = self.sym_value(v)
            self.add_node("torch.ops.aten.sym_size.int", inputs, [{"as_sym_int": {"as_name": node.name}}], node.name)
            return
        if not isinstance(target, torch._ops.OpOverload):
            raise ConversionError(f"node {node.name}: cannot convert call to {target!r}")
        target = _functional_target(target)
        schema = target._schema
        name = _op_name(target)
        args, kwargs = list(node.args), dict(node.kwargs)
        out_names_extra = []
        if name == "torch.ops.aten._reshape_alias.default":   # a view with contiguous strides
            name, args = "torch.ops.aten.view.default", args[:2]
            schema = torch.ops.aten.view.default._schema
        if name == "torch.ops.aten.native_batch_norm.default" and not args[5]:
            # eval-mode batch norm is _native_batch_norm_legit_no_training in torch 2.x
            name = "torch.ops.aten._native_batch_norm_legit_no_training.default"
            args = args[:5] + args[6:]
            arg_names = ["input", "weight", "bias", "running_mean", "running_var", "momentum", "eps"]
            inputs = [{"name": n, "arg": self.arg(a, "Tensor?" if i < 5 else "float"), "kind": 1}
                      for i, (n, a) in enumerate(zip(arg_names, args))]
            outs = []
            for i in range(3):
                out = getitems.get(i, f"{node.name}_out{i}")
                self.meta(out, v[0] if i == 0 else torch.empty(0))
                outs.append({"as_tensor": {"name": out}})
            self.add_node(name, inputs, outs, node.name)
            return
        inputs = []
        for i, sarg in enumerate(schema.arguments):
            if sarg.name in kwargs:
                value, kind = kwargs[sarg.name], 2
            elif not sarg.kwarg_only and i < len(args):
                value, kind = args[i], 1
            else:
                continue
            inputs.append({"name": sarg.name, "arg": self.arg(value, str(sarg.type)), "kind": kind})
        if isinstance(v, torch.Tensor):
            self.meta(node.name, v)
            outputs = [{"as_tensor": {"name": node.name}}]
        elif isinstance(v, (tuple, list)):
            outputs = []
            for i, item in enumerate(v):
                out = getitems.get(i, f"{node.name}_out{i}")
                if isinstance(item, torch.Tensor):
                    self.meta(out, item)
                    outputs.append({"as_tensor": {"name": out}})
                else:
                    outputs.append({"as_none": True})
        else:
            raise ConversionError(f"node {node.name}: unexpected result {type(v).__name__}")
        self.add_node(name, inputs, outputs, node.name)

    @staticmethod
    def sym_value(v):
        # the file records the sample value; shapec recomputes the expression itself
        return {"as_int": int(v)} if not isinstance(v, bool) else {"as_bool": v}


def _trace_1_13(module, example_inputs, input_names):
    from torch.fx.experimental.proxy_tensor import make_fx
    from torch.nn.utils import stateless
    params = dict(module.named_parameters())
    buffers = dict(module.named_buffers())
    state = {**params, **buffers}
    names = list(state)

    def forward(*flat):
        user = flat[:len(example_inputs)]
        return stateless.functional_call(module, dict(zip(names, flat[len(example_inputs):])), tuple(user))

    flat_inputs = list(example_inputs) + [state[n] for n in names]
    try:
        gm = make_fx(forward, tracing_mode="symbolic")(*flat_inputs)
    except Exception as e:  # noqa: BLE001 - any tracing failure is reported with its cause
        raise ConversionError(
            f"PyTorch {torch.__version__} cannot trace this module symbolically ({type(e).__name__}: {e}). "
            "Modules with fused fast paths (nn.TransformerEncoderLayer, nn.MultiheadAttention in eval mode) "
            "or ops that read sizes as plain ints are not traceable on 1.13: write the block from basic ops "
            "(see tools/shapec_tools/zoo.py) or convert with PyTorch 2.1 or later") from e
    gm.graph.eliminate_dead_code()
    # sample values of every node, from running the graph on the real inputs
    values = {}

    class Recorder(torch.fx.Interpreter):
        def run_node(self, n):
            r = super().run_node(n)
            values[n] = r
            return r

    Recorder(gm).run(*flat_inputs)
    return gm, values, params, buffers, names


def convert(module, example_inputs, outdir, input_names=None, name="model", pt2=False, dynamic=None):
    """Writes OUTDIR/NAME.json and OUTDIR/NAME.safetensors (and OUTDIR/NAME.pt2 when pt2).
    dynamic: the path of a dynamic_shapes spec as torch serializes it (PyTorch >= 2.1).
    Returns the path of the program JSON."""
    module = module.eval()
    example_inputs = list(example_inputs)
    input_names = list(input_names or [f"x{i}" if len(example_inputs) > 1 else "x" for i in range(len(example_inputs))])
    os.makedirs(outdir, exist_ok=True)
    ep = None
    if _torch_major_minor() >= (2, 1):
        ds = load_dynamic_shapes(dynamic, module, example_inputs) if dynamic else None
        ep, program, state = _convert_with_torch_export(module, example_inputs, ds)
    else:
        if dynamic:
            raise ConversionError(f"--dynamic needs torch.export (PyTorch 2.1 or later); this is {torch.__version__}: "
                                  "convert without it and give the spec to `shapec export --dynamic`")
        program, state = _serialize_1_13(module, example_inputs, input_names)
    json_path = os.path.join(outdir, name + ".json")
    with open(json_path, "w") as f:
        json.dump(program, f, indent=1)
        f.write("\n")
    files.write_safetensors(os.path.join(outdir, name + ".safetensors"), state)
    if pt2 and ep is not None:  # torch's own archive, in the layout this torch writes
        torch.export.save(ep, os.path.join(outdir, name + ".pt2"))
    elif pt2:
        files.write_pt2(os.path.join(outdir, name + ".pt2"), program, state)
    return json_path


def _serialize_1_13(module, example_inputs, input_names):
    with torch.no_grad():
        gm, values, params, buffers, names = _trace_1_13(module, example_inputs, input_names)
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    ser = _Serializer(gm, values, input_names, names)
    # readable names: user inputs by name, parameters p_<fqn>, buffers b_<fqn>
    input_specs, graph_inputs, state = [], [], {}
    for i, ph in enumerate(placeholders):
        if i < len(example_inputs):
            ser.names[ph] = input_names[i]
            spec = {"user_input": {"arg": {"as_tensor": {"name": input_names[i]}}}}
        else:
            fqn = names[i - len(example_inputs)]
            is_param = fqn in params
            ser.names[ph] = ("p_" if is_param else "b_") + fqn.replace(".", "_")
            state[fqn] = (params if is_param else buffers)[fqn].detach()
            arg = {"name": ser.names[ph]}
            spec = ({"parameter": {"arg": arg, "parameter_name": fqn}} if is_param else
                    {"buffer": {"arg": arg, "buffer_name": fqn, "persistent": True}})
        ser.meta(ser.names[ph], values[ph])
        graph_inputs.append({"as_tensor": {"name": ser.names[ph]}})
        input_specs.append(spec)
    # getitem nodes are folded into their producer's outputs, as torch's serializer does
    getitems = {}
    for n in gm.graph.nodes:
        if n.op == "call_function" and n.target is operator.getitem and isinstance(n.args[0], torch.fx.Node) \
                and isinstance(values[n.args[0]], (tuple, list)):
            getitems.setdefault(n.args[0], {})[n.args[1]] = n.name
    for n in gm.graph.nodes:
        if n.op != "call_function" or (n.target is operator.getitem and n.args[0] in getitems):
            continue
        ser.call(n, getitems.get(n, {}))
    out_node = next(n for n in gm.graph.nodes if n.op == "output")
    outs = out_node.args[0]
    outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
    outputs = [{"as_tensor": {"name": ser.name_of(o)}} for o in outs]
    program = {
        "graph_module": {
            "graph": {"inputs": graph_inputs, "outputs": outputs, "nodes": ser.nodes,
                      "tensor_values": ser.tensor_values, "sym_int_values": ser.sym_int_values,
                      "sym_bool_values": ser.sym_bool_values, "sym_float_values": {}, "custom_obj_values": {}},
            "signature": {"input_specs": input_specs,
                          "output_specs": [{"user_output": {"arg": o}} for o in outputs]},
            "module_call_graph": [{"fqn": "", "signature": {
                "inputs": [{"as_tensor": {"name": n}} for n in input_names], "outputs": outputs,
                "in_spec": "", "out_spec": "", "forward_arg_names": input_names}}],
        },
        "opset_version": {"aten": 10},
        "range_constraints": {},
        "schema_version": SCHEMA_VERSION,
        "torch_version": torch.__version__,
        "verifiers": [],
    }
    return program, state
