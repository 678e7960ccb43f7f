#!/usr/bin/env python3
"""Writes the small serialized programs the golden tests use (test/golden/models/).

Each model is what torch.export would serialize for a few lines of PyTorch, written by
hand with a tiny builder so that no PyTorch is needed.  Run it again after changing a
model; the JSON files are committed."""
import json
import os
import sys

F32, I64 = 7, 5


def meta(sizes, dtype=F32, requires_grad=False):
    def sym(s):
        if isinstance(s, int):
            return {"as_int": s}
        expr, hint = s if isinstance(s, tuple) else (s, None)
        return {"as_expr": {"expr_str": expr, "hint": None if hint is None else {"as_int": hint}}}
    return {"dtype": dtype, "sizes": [sym(s) for s in sizes], "requires_grad": requires_grad,
            "device": {"type": "cpu", "index": None}, "storage_offset": {"as_int": 0}, "layout": 7}


def T(n): return {"as_tensor": {"name": n}}
def TS(*ns): return {"as_tensors": [{"name": n} for n in ns]}
def I(v): return {"as_int": v}
def IS(*v): return {"as_ints": list(v)}
def SI(n): return {"as_sym_int": {"as_name": n}}
def SB(n): return {"as_sym_bool": {"as_name": n}}
def SIS(*v): return {"as_sym_ints": [{"as_name": x} if isinstance(x, str) else {"as_int": x} for x in v]}
def S(s): return {"as_string": s}


class Program:
    def __init__(self):
        self.inputs, self.specs, self.nodes, self.outputs = [], [], [], []
        self.tensors, self.symints, self.symbools = {}, {}, {}

    def param(self, name, target, sizes):
        self.tensors[name] = meta(sizes, requires_grad=True)
        self.inputs.append(T(name))
        self.specs.append({"parameter": {"arg": {"name": name}, "parameter_name": target}})

    def input(self, name, sizes, dtype=F32):
        self.tensors[name] = meta(sizes, dtype)
        self.inputs.append(T(name))
        self.specs.append({"user_input": {"arg": T(name)}})

    def node(self, target, args, out, sizes=None, dtype=F32, kind="tensor"):
        """out is a name, or a list of (name, sizes) for several tensor outputs."""
        inputs = [{"name": k, "arg": v, "kind": 1} for k, v in args]
        if kind == "tensor" and isinstance(out, list):
            for n, sz in out:
                self.tensors[n] = meta(sz, dtype)
            outputs = [T(n) for n, _ in out]
            name = out[0][0]
        elif kind == "tensor":
            self.tensors[out] = meta(sizes, dtype)
            outputs, name = [T(out)], out
        elif kind == "symint":
            self.symints[out] = {"as_expr": {"expr_str": sizes[0], "hint": None if sizes[1] is None else {"as_int": sizes[1]}}}
            outputs, name = [SI(out)], out
        elif kind == "symbool":
            self.symbools[out] = {"as_expr": {"expr_str": sizes}}
            outputs, name = [SB(out)], out
        else:
            outputs, name = [{"as_none": True}], out
        self.nodes.append({"name": name, "target": target, "inputs": inputs, "outputs": outputs, "metadata": {}})

    def output(self, *names):
        self.outputs = list(names)

    def save(self, path):
        ep = {
            "graph_module": {
                "graph": {"inputs": self.inputs, "outputs": [T(n) for n in self.outputs], "nodes": self.nodes,
                          "tensor_values": self.tensors, "sym_int_values": self.symints,
                          "sym_bool_values": self.symbools},
                "signature": {"input_specs": self.specs,
                              "output_specs": [{"user_output": {"arg": T(n)}} for n in self.outputs]},
                "module_call_graph": [],
            },
            "opset_version": {"aten": 10}, "range_constraints": {},
            "schema_version": {"major": 8, "minor": 13}, "torch_version": "2.9.0",
        }
        with open(path, "w") as f:
            json.dump(ep, f, indent=1)
            f.write("\n")


A = "torch.ops.aten."


def foo_add():
    """x + y, then + torch.ones(4): the tutorial's suggested-fixes model."""
    p = Program()
    p.input("x", [6, 4]); p.input("y", [6, 4])
    p.node(A + "add.Tensor", [("self", T("x")), ("other", T("y"))], "add", [6, 4])
    p.node(A + "ones.default", [("size", IS(4))], "ones", [4])
    p.node(A + "add.Tensor", [("self", T("add")), ("other", T("ones"))], "add_1", [6, 4])
    p.output("add_1")
    return p


def tutorial_checks():
    """The tutorial model with `assert w.shape[0] <= 512`, `torch._check(x.shape[0] >= 4)`
    and the branch `if w.shape[0] == x.shape[0] + 2` taken."""
    p = Program()
    p.param("p_l_weight", "l.weight", [3, 5]); p.param("p_l_bias", "l.bias", [3])
    p.input("w", [6, 5]); p.input("x", [4]); p.input("y", [8, 4]); p.input("z", [32])
    p.node(A + "sym_size.int", [("self", T("w")), ("dim", I(0))], "sym_size_int", ("s0", 6), kind="symint")
    p.node("_operator.le", [("a", SI("sym_size_int")), ("b", I(512))], "le", "s0 <= 512", kind="symbool")
    p.node(A + "_assert_scalar.default", [("self", SB("le")), ("assert_msg", S("w.shape[0] <= 512"))], "_assert_scalar", kind="none")
    p.node(A + "sym_size.int", [("self", T("x")), ("dim", I(0))], "sym_size_int_1", ("s2", 4), kind="symint")
    p.node("_operator.ge", [("a", SI("sym_size_int_1")), ("b", I(4))], "ge", "s2 >= 4", kind="symbool")
    p.node(A + "_assert_scalar.default", [("self", SB("ge")), ("assert_msg", S("x.shape[0] >= 4"))], "_assert_scalar_1", kind="none")
    p.node("_operator.add", [("a", SI("sym_size_int_1")), ("b", I(2))], "add_2", ("s2 + 2", 6), kind="symint")
    p.node("_operator.eq", [("a", SI("sym_size_int")), ("b", SI("add_2"))], "eq", "Eq(s0, s2 + 2)", kind="symbool")
    p.node(A + "_assert_scalar.default", [("self", SB("eq")), ("assert_msg", S("branch"))], "_assert_scalar_2", kind="none")
    p.node(A + "add.Tensor", [("self", T("x")), ("other", T("y"))], "add", [8, 4])
    p.node(A + "permute.default", [("self", T("p_l_weight")), ("dims", IS(1, 0))], "permute", [5, 3])
    p.node(A + "addmm.default", [("self", T("p_l_bias")), ("mat1", T("w")), ("mat2", T("permute"))], "addmm", [6, 3])
    p.node(A + "flatten.using_ints", [("self", T("add"))], "flatten", [32])
    p.node(A + "add.Tensor", [("self", T("flatten")), ("other", T("z"))], "add_1", [32])
    p.output("addmm", "add_1")
    return p


def linear_batch1():
    """torch.nn.Linear(4, 3) exported with a sample batch of 1."""
    p = Program()
    p.param("p_weight", "weight", [3, 4]); p.param("p_bias", "bias", [3])
    p.input("input", [1, 4])
    p.node(A + "permute.default", [("self", T("p_weight")), ("dims", IS(1, 0))], "permute", [4, 3])
    p.node(A + "addmm.default", [("self", T("p_bias")), ("mat1", T("input")), ("mat2", T("permute"))], "addmm", [1, 3])
    p.output("addmm")
    return p


def cat_double():
    """torch.cat([x, x]) + y: y's first dim is twice x's."""
    p = Program()
    p.input("x", [4, 3]); p.input("y", [8, 3])
    p.node(A + "cat.default", [("tensors", TS("x", "x"))], "cat", [8, 3])
    p.node(A + "add.Tensor", [("self", T("cat")), ("other", T("y"))], "add", [8, 3])
    p.output("add")
    return p


def view4():
    """x.view(-1, 4): x's size must be a multiple of 4."""
    p = Program()
    p.input("x", [16])
    p.node(A + "view.default", [("self", T("x")), ("size", IS(-1, 4))], "view", [4, 4])
    p.output("view")
    return p


def auto_static():
    """x + y where y is static: an AUTO x becomes static."""
    p = Program()
    p.input("x", [4]); p.input("y", [4])
    p.node(A + "add.Tensor", [("self", T("x")), ("other", T("y"))], "add", [4])
    p.output("add")
    return p


def reshape_product():
    """x.view(-1) + y: the seeds' runtime-assert example, Eq(s0*s1, s2)."""
    p = Program()
    p.input("x", [3, 4]); p.input("y", [12])
    p.node(A + "view.default", [("self", T("x")), ("size", IS(-1))], "view", [12])
    p.node(A + "add.Tensor", [("self", T("view")), ("other", T("y"))], "add", [12])
    p.output("add")
    return p


def view_mod():
    """x.view(-1, 4) on a 2-D x: Mod(s0*s1, 4) is outside the Dim language."""
    p = Program()
    p.input("x", [3, 4])
    p.node(A + "view.default", [("self", T("x")), ("size", IS(-1, 4))], "view", [3, 4])
    p.output("view")
    return p


def item_check():
    """a = x.item(); torch._check(a >= 0); torch._check(a <= 100); y.unsqueeze(0).repeat(a, 1)."""
    p = Program()
    p.input("x", [], dtype=I64); p.input("y", [60])
    p.node(A + "_local_scalar_dense.default", [("self", T("x"))], "item", ("u0", None), kind="symint")
    p.node("_operator.ge", [("a", SI("item")), ("b", I(0))], "ge", "u0 >= 0", kind="symbool")
    p.node(A + "_assert_scalar.default", [("self", SB("ge")), ("assert_msg", S("a >= 0"))], "_assert_scalar", kind="none")
    p.node("_operator.le", [("a", SI("item")), ("b", I(100))], "le", "u0 <= 100", kind="symbool")
    p.node(A + "_assert_scalar.default", [("self", SB("le")), ("assert_msg", S("a <= 100"))], "_assert_scalar_1", kind="none")
    p.node(A + "unsqueeze.default", [("self", T("y")), ("dim", I(0))], "unsqueeze", [1, 60])
    p.node(A + "repeat.default", [("self", T("unsqueeze")), ("repeats", SIS("item", 1))], "repeat", [("u0", None), 60])
    p.output("repeat")
    return p


def conv_pool():
    """Conv2d(3, 8, 3, stride=2, padding=1) then max_pool2d(2): floor-division sizes."""
    p = Program()
    p.param("p_weight", "conv.weight", [8, 3, 3, 3]); p.param("p_bias", "conv.bias", [8])
    p.input("x", [2, 3, 32, 32])
    p.node(A + "convolution.default", [("input", T("x")), ("weight", T("p_weight")), ("bias", T("p_bias")),
                                       ("stride", IS(2, 2)), ("padding", IS(1, 1)), ("dilation", IS(1, 1)),
                                       ("transposed", {"as_bool": False}), ("output_padding", IS(0, 0)),
                                       ("groups", I(1))], "convolution", [2, 8, 16, 16])
    p.node(A + "max_pool2d_with_indices.default", [("self", T("convolution")), ("kernel_size", IS(2, 2))],
           [("getitem", [2, 8, 8, 8]), ("getitem_1", [2, 8, 8, 8])])
    p.tensors["getitem_1"]["dtype"] = I64  # the indices, as torch declares them
    p.output("getitem")
    return p


def constrain_for_size():
    """n = x.item(); torch._check_is_size(n); torch._check(n <= 64); torch.zeros(n)."""
    p = Program()
    p.input("x", [], dtype=I64)
    p.node(A + "_local_scalar_dense.default", [("self", T("x"))], "item", ("u0", None), kind="symint")
    p.node(A + "sym_constrain_range_for_size.default", [("size", SI("item")), ("max", I(64))], "constrain", kind="none")
    p.node(A + "zeros.default", [("size", SIS("item"))], "zeros", [("u0", None)])
    p.output("zeros")
    return p


def slice_broadcast():
    """x[3:] + y: the slice's sample size is 1, so it broadcasts and pins x's size to 4."""
    p = Program()
    p.input("x", [4]); p.input("y", [5])
    p.node(A + "slice.Tensor", [("self", T("x")), ("dim", I(0)), ("start", I(3))], "slice", [1])
    p.node(A + "add.Tensor", [("self", T("slice")), ("other", T("y"))], "add", [5])
    p.output("add")
    return p


def pinned_by_checks():
    """torch._check(x.shape[0] <= 4); torch._check(x.shape[0] >= 4); x * 2."""
    p = Program()
    p.input("x", [4])
    p.node(A + "sym_size.int", [("self", T("x")), ("dim", I(0))], "sym_size_int", ("s0", 4), kind="symint")
    p.node("_operator.le", [("a", SI("sym_size_int")), ("b", I(4))], "le", "s0 <= 4", kind="symbool")
    p.node(A + "_assert_scalar.default", [("self", SB("le")), ("assert_msg", S("x.shape[0] <= 4"))], "_assert_scalar", kind="none")
    p.node("_operator.ge", [("a", SI("sym_size_int")), ("b", I(4))], "ge", "s0 >= 4", kind="symbool")
    p.node(A + "_assert_scalar.default", [("self", SB("ge")), ("assert_msg", S("x.shape[0] >= 4"))], "_assert_scalar_1", kind="none")
    p.node(A + "mul.Tensor", [("self", T("x")), ("other", {"as_float": 2.0})], "mul", [4])
    p.output("mul")
    return p


def mm_mismatch():
    """torch.mm of [2, 5] and [4, 3]: the program itself is wrong."""
    p = Program()
    p.input("x", [2, 5]); p.input("y", [4, 3])
    p.node(A + "mm.default", [("self", T("x")), ("mat2", T("y"))], "mm", [2, 3])
    p.output("mm")
    return p


MODELS = {f.__name__: f for f in [slice_broadcast, pinned_by_checks, mm_mismatch, constrain_for_size, foo_add, tutorial_checks, linear_batch1, cat_double, view4, auto_static,
                                   reshape_product, view_mod, item_check, conv_pool]}

if __name__ == "__main__":
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")
    for name, make in MODELS.items():
        make().save(os.path.join(out, name + ".json"))
    print("wrote", len(MODELS), "models to", out, file=sys.stderr)
