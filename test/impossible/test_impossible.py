#!/usr/bin/env python3
"""test_impossible.py - programs that no input satisfies, and sizes whose divisor saturates.

usage: test_impossible.py SHAPEC SOURCE_DIR

Each case edits a program real torch 2.14 exported (test/real/corpus/2.14: check_ge, x + 1
with torch._check(x.shape[0] >= 4); item_range, new_ones(u0) with u0 = n.item() and two
runtime asserts on u0) and runs `shapec export --no-codegen` on it:
  - sizes s77 // 2**62 // 2 and 63 halvings export (they once overflowed the stack);
  - guards_code entries that contradict each other or range_constraints, runtime asserts
    that contradict each other, range_constraints with min > max, a division or modulo by
    zero in a size or a guard, and a spec whose range with the program's asserts leaves no
    value: each is refused with SC0607 at the JSON path of one conflicting part, naming
    the other, with exit 1;
  - the unedited programs still export.
Prints one TAP line per check; exits 1 if any fails."""
import copy
import json
import os
import subprocess
import sys
import tempfile
import zipfile

FAILED = []
N = [0]


def check(ok, name, detail=""):
    N[0] += 1
    print(("ok" if ok else "not ok") + f" {N[0]} - {name}")
    if not ok:
        FAILED.append(name)
        for line in str(detail).splitlines()[:20]:
            print("#   " + line)


def program(src, name):
    with zipfile.ZipFile(os.path.join(src, "test/real/corpus/2.14", name, "model.pt2")) as z:
        member = next(m for m in z.namelist() if m.endswith("models/model.json"))
        return json.loads(z.read(member))


def export(shapec, tmp, name, prog, spec=None):
    model = os.path.join(tmp, name + ".json")
    with open(model, "w") as f:
        json.dump(prog, f, indent=1)
    cmd = [shapec, "export", model, "--no-codegen", "-q", "--diagnostics-format", "json",
           "-o", os.path.join(tmp, "out-" + name)]
    if spec is not None:
        spec_file = os.path.join(tmp, name + ".spec.json")
        with open(spec_file, "w") as f:
            json.dump(spec, f)
        cmd += ["--dynamic", spec_file]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    try:
        diags = json.loads(r.stderr)["diagnostics"]
    except (ValueError, KeyError):
        diags = None
    return r, diags


def set_size(prog, expr, hint):
    values = prog["graph_module"]["graph"]["tensor_values"]
    for v in ("x", "add"):
        values[v]["sizes"][0] = {"as_expr": {"expr_str": expr, "hint": {"as_int": hint}}}


def expect_refused(r, diags, name, path, names=()):
    """Exit 1 with one SC0607 at `path` whose message holds every string of `names`."""
    errors = [d for d in diags or [] if d["severity"] == "error"]
    found = [d for d in errors if d["code"] == "SC0607"]
    ok = r.returncode == 1 and len(found) == 1 and found[0]["location"].get("json_path") == path
    ok = ok and all(n in found[0]["message"] for n in names)
    check(ok, name, f"exit {r.returncode}\n{r.stderr}")


def main():
    shapec, src = sys.argv[1], sys.argv[2]
    check_ge = program(src, "check_ge")
    item_range = program(src, "item_range")
    with tempfile.TemporaryDirectory() as tmp:
        # the unedited programs export
        for name, prog in (("check_ge", check_ge), ("item_range", item_range)):
            r, diags = export(shapec, tmp, name, prog)
            check(r.returncode == 0 and not any(d["code"] == "SC0607" for d in diags or []),
                  f"{name} as torch wrote it exports", r.stderr)

        # divisors that saturate to int_oo: no endless recursion, the export goes on
        for name, expr in (("div_2_62_then_2", "s77//4611686018427387904//2"), ("halved_63_times", "s77" + "//2" * 63)):
            p = copy.deepcopy(check_ge)
            p["guards_code"] = []
            set_size(p, expr, 0)
            r, diags = export(shapec, tmp, name, p)
            check(r.returncode == 0 and diags is not None, f"{name}: a size whose divisor saturates exports",
                  f"exit {r.returncode}\n{r.stderr}")

        # two guards_code entries that exclude each other
        p = copy.deepcopy(check_ge)
        p["guards_code"] = ["L['x'].size()[0] >= 10", "L['x'].size()[0] <= 5"]
        set_size(p, "s77", 12)
        r, diags = export(shapec, tmp, "guards_contradict", p)
        expect_refused(r, diags, "guards x >= 10 and x <= 5 contradict each other", "guards_code[1]",
                       ("guards_code[0]", "L['x'].size()[0] >= 10", "Expected cond to be True, but got False."))

        # a guards_code entry against range_constraints
        p = copy.deepcopy(check_ge)
        p["guards_code"] = ["L['x'].size()[0] >= 10"]
        p["range_constraints"] = {"s77": {"min_val": 4, "max_val": 8}}
        set_size(p, "s77", 12)
        r, diags = export(shapec, tmp, "guard_vs_range", p)
        expect_refused(r, diags, "a guard x >= 10 against range_constraints [4, 8]", "guards_code[0]",
                       ("range_constraints.s77",))

        # range_constraints with min > max
        p = copy.deepcopy(check_ge)
        p["range_constraints"] = {"s77": {"min_val": 10, "max_val": 5}}
        r, diags = export(shapec, tmp, "range_min_above_max", p)
        expect_refused(r, diags, "range_constraints with min 10 > max 5", "range_constraints.s77",
                       ("inconsistent min=10, max=5",))

        # divisions and modulos by zero, in a size and in a guard
        for name, expr in (("size_div_zero", "s77//0"), ("size_mod_zero", "Mod(s77, 0)")):
            p = copy.deepcopy(check_ge)
            p["guards_code"] = []
            set_size(p, expr, 0)
            r, diags = export(shapec, tmp, name, p)
            expect_refused(r, diags, f"{name}: a size {expr}", "graph_module.graph.tensor_values.x.sizes[0]",
                           ("division by zero",))
        p = copy.deepcopy(check_ge)
        p["guards_code"] = ["L['x'].size()[0] // 0 == 1"]
        r, diags = export(shapec, tmp, "guard_div_zero", p)
        expect_refused(r, diags, "a guard dividing by zero", "guards_code[0]", ("division by zero",))

        # runtime asserts u0 >= 2 and u0 <= 1 (the second edited from u0 <= 16)
        p = copy.deepcopy(item_range)
        nodes = p["graph_module"]["graph"]["nodes"]
        le = next(i for i, n in enumerate(nodes) if n["target"] == "_operator.le")
        nodes[le]["inputs"][1]["arg"]["as_int"] = 1
        r, diags = export(shapec, tmp, "asserts_contradict", p)
        assert_node = next(i for i, n in enumerate(nodes) if i > le and "_assert_scalar" in n["target"])
        expect_refused(r, diags, "runtime asserts u0 >= 2 and u0 <= 1 contradict each other",
                       f"graph_module.graph.nodes[{assert_node}]", ("u0 >= 2", "graph_module.graph.nodes[2]"))

        # a spec whose range for x leaves u0 nothing: asserts u0 >= 10 and u0 <= x.size()[0]
        # with x's Dim at most 8 (the program alone allows x of 10 and more)
        p = copy.deepcopy(item_range)
        g = p["graph_module"]["graph"]
        g["sym_int_values"]["sym_size_int"] = {"as_expr": {"expr_str": "s77", "hint": {"as_int": 3}}}
        for n in g["nodes"]:
            if n["target"] == "_operator.ge":
                n["inputs"][1]["arg"]["as_int"] = 10
            if n["target"] == "_operator.le":
                n["inputs"][1]["arg"] = {"as_sym_int": {"as_name": "sym_size_int"}}
        g["nodes"].insert(0, {"target": "torch.ops.aten.sym_size.int", "name": "sym_size_int",
                              "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}, "kind": 1},
                                         {"name": "dim", "arg": {"as_int": 0}, "kind": 1}],
                              "outputs": [{"as_sym_int": {"as_name": "sym_size_int"}}], "metadata": {},
                              "is_hop_single_tensor_return": None})
        p["range_constraints"] = {"u0": {"min_val": 10, "max_val": None}, "s77": {"min_val": 2, "max_val": None}}
        r, diags = export(shapec, tmp, "unbacked_below_size", p)
        check(r.returncode == 0, "asserts u0 >= 10 and u0 <= x.size()[0] without a spec export", r.stderr)
        le = next(i for i, n in enumerate(g["nodes"]) if n["target"] == "_operator.le")
        assert_node = next(i for i, n in enumerate(g["nodes"]) if i > le and "_assert_scalar" in n["target"])
        spec = {"dynamic_shapes": [["dx"], None], "dims": {"dx": {"max": 8}}}
        r, diags = export(shapec, tmp, "unbacked_below_size", p, spec)
        expect_refused(r, diags, "a spec with dx <= 8 against asserts u0 >= 10 and u0 <= x.size()[0]",
                       f"graph_module.graph.nodes[{assert_node}]", ("dims.dx", "u0 >= 10"))

    print(f"1..{N[0]}")
    if FAILED:
        print(f"# {len(FAILED)} of {N[0]} failed: " + "; ".join(FAILED))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
