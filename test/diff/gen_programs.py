"""gen_programs.py - the differential tester's programs: random small modules with random
dynamic_shapes specs, each exported by the real torch it runs under, with torch's answers
beside it (test/diff/README.md).

    scripts/real-torch.sh --torch 2.14 run test/diff/gen_programs.py OUTDIR FIRST_SEED COUNT

Writes OUTDIR/p<seed>/: program.py (the module's source, for people), spec.json,
answers.json (gen_corpus.py's answers: the export's outcome and message, range
constraints, input shapes, guards_code, probes against ep.module(), and for the family
seeds file_probes, the same against the reloaded model.pt2's module), and model.pt2
(exported with the spec) where torch accepts it, else static.pt2 (exported without a
spec): the program `shapec export --dynamic spec.json` re-applies the spec to.  A seed always gives the same
program.  Seeds from 100000 on come from families.py (many more families of steps, every
input form, specs people get wrong); their static.pt2 is always kept, for test_diff.py's
mode C (the spec applied to a static export)."""
import inspect
import json
import os
import random
import sys
import traceback

import torch
from torch.export import Dim

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "real"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import families  # noqa: E402
import gen_corpus  # noqa: E402


class Program:
    """Source lines of forward(self, x[, y]) over a value h, with its parameters."""

    def __init__(self, rng):
        self.rng = rng
        self.lines = []
        self.params = {}
        self.n = None          # the sample of an int input n, when the program has one
        self.unbacked = False  # whether steps may use item()
        self.dd = False        # whether steps may make sizes data-dependent without torch._check


def sample_shape(rng, rank):
    return [rng.choice([2, 3, 4, 5, 6, 8]) for _ in range(rank)]


def gen_body(rng, prog, shapes):
    """Appends 2-5 steps; shapes: the inputs' sample shapes (x first).  Tracks h's sample
    shape so that every step is valid at the sample (torch decides the rest)."""
    h = list(shapes[0])
    prog.lines.append("h = x")
    y = shapes[1] if len(shapes) > 1 else None
    for _ in range(rng.randint(2, 5)):
        r = len(h)
        if None in h:  # a size only the data decides (None): steps that need no sample of it
            h = gen_after_data_dependent(rng, prog, h)
            continue
        choices = ["relu", "scale", "guard_if", "check"]
        if y is not None and len(y) <= r and all(a == b or b == 1 for a, b in zip(h[r - len(y):], y)):
            choices += ["add_y"] * 3
        if r >= 2:
            choices += ["flatten", "transpose", "view_keep0", "sum_last"]
        if r >= 1:
            choices += ["slice0", "cat0", "matmul", "unsqueeze", "reshape_flat", "narrow_last", "div_guard"]
        if prog.n is not None:
            choices += ["scale_n", "scale_n", "slice_n"]
        if r >= 1 and prog.unbacked:
            choices += ["item_slice"]
        if r >= 1 and prog.dd:
            choices += ["dd_slice", "dd_narrow", "dd_nonzero", "dd_mask", "dd_new"] * 2
        step = rng.choice(choices)
        if step.startswith("dd_"):
            h = gen_data_dependent(rng, prog, h, step)
            continue
        if step == "relu":
            prog.lines.append("h = h.relu()")
        elif step == "scale":
            prog.lines.append(f"h = h * {rng.choice([2, 0.5, -1])}")
        elif step == "add_y":
            prog.lines.append("h = h + y")
            y = None
        elif step == "guard_if":
            k = rng.randint(1, 9)
            prog.lines += [f"if h.shape[0] > {k}:", "    h = h + 1", "else:", "    h = h - 1"]
        elif step == "check":
            d = rng.randrange(r) if r else None
            if d is None:
                continue
            bound = rng.choice([2, h[d], h[d] - 1, max(1, h[d] // 2)])
            op = rng.choice([">=", "<=", "!="]) if bound != h[d] else rng.choice([">=", "<="])
            if op == "!=" and bound == h[d]:
                op = ">="
            ok = {">=": h[d] >= bound, "<=": h[d] <= bound, "!=": h[d] != bound}[op]
            if ok:
                prog.lines.append(f"torch._check(h.shape[{d}] {op} {bound})")
        elif step == "flatten":
            prog.lines.append("h = h.flatten(1)")
            h = [h[0], _prod(h[1:])]
        elif step == "transpose":
            prog.lines.append("h = h.transpose(0, 1)")
            h = [h[1], h[0]] + h[2:]
        elif step == "view_keep0":
            prog.lines.append("h = h.view(h.shape[0], -1)")
            h = [h[0], _prod(h[1:])]
        elif step == "sum_last":
            prog.lines.append("h = h.sum(-1)")
            h = h[:-1]
        elif step == "slice0":
            k = rng.randint(1, max(1, h[0] - 1))
            prog.lines.append(f"h = h[:{k}]")
            h[0] = min(k, h[0])
        elif step == "cat0":
            prog.lines.append("h = torch.cat([h, h], dim=0)")
            h[0] *= 2
        elif step == "matmul":
            n = rng.choice([3, 4])
            name = f"w{len(prog.params)}"
            prog.params[name] = [h[-1], n]
            prog.lines.append(f"h = h @ self.{name}")
            h[-1] = n
        elif step == "unsqueeze":
            if r < 4:
                prog.lines.append("h = h.unsqueeze(0)")
                h = [1] + h
        elif step == "reshape_flat":
            prog.lines.append("h = h.reshape(-1)")
            h = [_prod(h)]
        elif step == "narrow_last":
            k = rng.randint(1, h[-1])
            prog.lines.append(f"h = h.narrow(-1, 0, {k})")
            h[-1] = k
        elif step == "div_guard":
            prog.lines += ["if h.shape[0] % 2 == 0:", "    h = h * 3"]
        elif step == "scale_n":
            prog.lines.append("h = h * n + n")
        elif step == "slice_n":
            if h[0] >= prog.n:
                prog.lines.append("h = h[:n]")
                h[0] = prog.n
        elif step == "item_slice":  # a data-dependent length, bounded by torch._check
            prog.lines += ["u = (h > 0).sum().item()", "torch._check(u >= 0)", "torch._check(u <= h.shape[0])",
                           "h = h[:u].sum(0) if h.dim() > 1 else h[:u].sum().reshape(1)"]
            h = h[1:] if len(h) > 1 else [1]
    prog.lines.append("return h")


DATA_DEPENDENT = {  # h's first dim becomes a size only the data decides, unchecked
    "dd_slice": ["u = (h > 0).sum().item()", "h = h[:u]"],
    "dd_narrow": ["u = (h > 0).sum().item()", "h = h.narrow(0, 0, u)"],
    "dd_nonzero": ["h = h.nonzero().float()"],
    "dd_mask": ["h = h[h > 0]"],
    "dd_new": ["u = (h > 0).sum().item()", "h = h.sum() + torch.ones(u, 2)"],
}


def gen_data_dependent(rng, prog, h, step):
    """One of DATA_DEPENDENT's steps; returns h's new sample shape, None for the unbacked dim."""
    prog.lines += DATA_DEPENDENT[step]
    if step in ("dd_slice", "dd_narrow"):
        return [None] + h[1:]
    if step == "dd_nonzero":
        return [None, len(h)]
    if step == "dd_mask":
        return [None]
    return [None, 2]


def gen_after_data_dependent(rng, prog, h):
    """A step on h whose first dim is unbacked: elementwise ops, a Python `if` or a check on
    that size (torch's data-dependent error unless it can decide), a cat, a matmul."""
    choices = ["relu", "scale", "guard_if", "div_guard", "cat0", "dd_check", "dd_check"]
    if len(h) >= 2:
        choices += ["sum_last", "view_keep0", "matmul"]
    step = rng.choice(choices)
    if step == "relu":
        prog.lines.append("h = h.relu()")
    elif step == "scale":
        prog.lines.append("h = h * 2")
    elif step == "guard_if":
        prog.lines += [f"if h.shape[0] > {rng.randint(0, 4)}:", "    h = h + 1"]
    elif step == "div_guard":
        prog.lines += ["if h.shape[0] % 2 == 0:", "    h = h * 3"]
    elif step == "cat0":
        prog.lines.append("h = torch.cat([h, h], dim=0)")
    elif step == "dd_check":  # bounds the unbacked size, as a user would with torch._check
        prog.lines.append(f"torch._check(h.shape[0] {rng.choice(['>=', '<=', '!='])} {rng.choice([0, 1, 2, 8])})")
    elif step == "sum_last":
        prog.lines.append("h = h.sum(-1)")
        h = h[:-1]
    elif step == "view_keep0":
        prog.lines.append("h = h.view(h.shape[0], -1)")
        h = [None, _prod(h[1:])]
    elif step == "matmul":
        n = rng.choice([3, 4])
        name = f"w{len(prog.params)}"
        prog.params[name] = [h[-1], n]
        prog.lines.append(f"h = h @ self.{name}")
        h = h[:-1] + [n]
    return h


def _prod(xs):
    p = 1
    for v in xs:
        p *= v
    return p


def gen_spec(rng, shapes):
    """A dynamic_shapes entry per input: per dim None (static), AUTO, STATIC, DYNAMIC, a
    named Dim with a range, or a Dim shared with the other input's equal dim."""
    named = {}
    specs = []
    for i, shape in enumerate(shapes):
        entry = {}
        for d, size in enumerate(shape):
            kind = rng.choice(["auto", "auto", "dynamic", "static", "none", "named", "named", "shared"])
            if kind == "auto":
                entry[d] = Dim.AUTO
            elif kind == "dynamic":
                entry[d] = Dim.DYNAMIC
            elif kind == "static":
                entry[d] = Dim.STATIC
            elif kind in ("named", "shared"):
                key = ("shared", size) if kind == "shared" else ("own", i, d)
                if key not in named:
                    lo = rng.choice([None, 0, 1, 2, max(2, size - 2)])
                    hi = rng.choice([None, size + rng.randint(0, 40), 1024])
                    kw = {}
                    if lo is not None:
                        kw["min"] = lo
                    if hi is not None:
                        kw["max"] = hi
                    named[key] = Dim(f"d{i}_{d}" if kind == "named" else f"s{size}", **kw)
                entry[d] = named[key]
        specs.append(entry or None)
    return tuple(specs)


def make_case(seed):
    rng = random.Random(seed)
    torch.manual_seed(seed)
    x_shape = sample_shape(rng, rng.randint(1, 3))
    shapes = [x_shape]
    if rng.random() < 0.5:  # a second input that broadcasts against x
        shapes.append([s if rng.random() < 0.7 else 1 for s in x_shape[rng.randint(0, len(x_shape) - 1):]])
    prog = Program(rng)
    # seeds from 1000 on also draw ints, dict inputs and data-dependent lengths (the
    # fixed set 0-299 keeps its programs)
    extended = seed >= 1000
    if extended and rng.random() < 0.3:
        prog.n = rng.randint(2, 5)
    prog.unbacked = extended and rng.random() < 0.2
    # seeds from 30000 on also draw data-dependent sizes that no torch._check bounds
    prog.dd = seed >= 30000 and rng.random() < 0.5
    in_dict = extended and len(shapes) == 2 and rng.random() < 0.3
    gen_body(rng, prog, shapes)
    names = ["x", "d" if in_dict else "y"][:len(shapes)] + (["n"] if prog.n is not None else [])
    head = ['y = d["y"]'] if in_dict else []
    src = [f"def forward(self, {', '.join(names)}):"] + ["    " + line for line in head + prog.lines]
    module = families.module_from_source(f"P{seed}", src, prog.params)
    tensors = [torch.randn(*s) for s in shapes]
    spec = list(gen_spec(rng, shapes))
    args = [tensors[0]]
    if len(tensors) > 1:
        args.append({"y": tensors[1]} if in_dict else tensors[1])
        if in_dict:
            spec[1] = {"y": spec[1]}
    if prog.n is not None:
        args.append(prog.n)
        spec.append(rng.choice([None, Dim.DYNAMIC, Dim.AUTO]))
    return module.eval(), tuple(args), tuple(spec), "\n".join(src)


def save_auto(module, args, d, kwargs=None):
    """Where torch refuses the spec: the program exported with every dim AUTO (auto.pt2),
    whose range_constraints and guards_code carry the guards of its Python code (an `if`
    on a size, a torch._check) that a static program cannot show; test_diff.py re-applies
    the refused spec to it.  Returns whether torch exported it."""
    args, kwargs = torch.utils._pytree.tree_map(lambda v: v.clone() if isinstance(v, torch.Tensor) else v,
                                                (tuple(args), dict(kwargs or {})))

    def auto(a):
        if isinstance(a, dict):
            return {k: auto(v) for k, v in a.items()}
        if isinstance(a, (list, tuple)):
            return type(a)(auto(v) for v in a)
        if isinstance(a, float):
            return None
        return {k: Dim.AUTO for k in range(a.dim())} if isinstance(a, torch.Tensor) else Dim.AUTO
    ds = tuple(auto(a) for a in args)
    if kwargs:
        names = list(inspect.signature(module.forward).parameters)
        ds = dict(zip(names, ds), **{k: auto(v) for k, v in kwargs.items()})
    try:
        torch.export.save(torch.export.export(module, args, kwargs=kwargs, dynamic_shapes=ds), os.path.join(d, "auto.pt2"))
        return True
    except Exception:  # noqa: BLE001 - then the static program is what there is
        return False


def add_file_probes(d, args, kwargs):
    """answers.json's file_probes: the same probes against the module of model.pt2 as
    torch.export.load reads it back, which mode A compares with (shapec reads that file,
    and its module checks a size the file holds static before guards_code, where the
    in-memory program checks guards_code only: `x.size()[0] == 6` against `1 + x.size()[0]
    == 7`)."""
    path = os.path.join(d, "answers.json")
    answers = json.load(open(path))
    ep = torch.export.load(os.path.join(d, "model.pt2"))
    answers["file_probes"] = gen_corpus.probes(ep, args, kwargs, answers["range_constraints"])
    gen_corpus.write_answers(d, answers)


def main(argv):
    if argv[1] == "--auto-only":  # add auto.pt2 to a set generated before it existed
        out, first, count = argv[2], int(argv[3]), int(argv[4])
        made = 0
        for seed in range(first, first + count):
            d = os.path.join(out, f"p{seed}")
            if not os.path.exists(os.path.join(d, "static.pt2")):  # torch exported it, or auto.pt2 is there
                continue
            answers = json.load(open(os.path.join(d, "answers.json")))
            if answers["export"] != "ok":
                module, args, _, _ = make_case(seed)
                if save_auto(module, args, d):
                    made += 1
                    os.remove(os.path.join(d, "static.pt2"))
        print(f"torch {torch.__version__}: auto.pt2 for {made} programs", flush=True)
        return
    out, first, count = argv[1], int(argv[2]), int(argv[3])
    os.makedirs(out, exist_ok=True)
    counts = {}
    for seed in range(first, first + count):
        name = f"p{seed}"
        try:
            family = seed >= families.FIRST_SEED
            if family:
                module, args, kwargs, ds, src = families.make_case(seed)
            else:
                (module, args, ds, src), kwargs = make_case(seed), {}
            os.makedirs(os.path.join(out, name), exist_ok=True)
            with open(os.path.join(out, name, "program.py"), "w") as f:
                f.write(f"# seed {seed}; dynamic_shapes: {ds!r}\n{src}\n")
            verdict = gen_corpus.export_case(name, module, args, ds, kwargs, out_root=out, also_static=True,
                                             decompose=False)
            if verdict == "ok" and family:
                add_file_probes(os.path.join(out, name), args, kwargs)
            static = os.path.join(out, name, "static.pt2")
            # the spec is re-applied to torch's own program (test_diff.py), or where torch
            # refused it, to the program exported with every dim AUTO; the families keep the
            # static one too (mode C)
            if (verdict == "ok" or save_auto(module, args, os.path.join(out, name), kwargs)) and os.path.exists(static) \
                    and not family:
                os.remove(static)
        except Exception:  # noqa: BLE001 - a generator bug, not torch's verdict
            traceback.print_exc()
            verdict = "generator-error"
        counts[verdict] = counts.get(verdict, 0) + 1
    print(f"torch {torch.__version__}: seeds {first}..{first + count - 1}: {counts}", flush=True)


if __name__ == "__main__":
    main(sys.argv)
