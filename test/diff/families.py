"""families.py - the differential tester's second generator (seeds from 100000 on): programs
made of the size-dependent steps people write (issue 63), combined at random, over inputs
of every form torch.export takes, with specs drawn as users write them, wrong ones included.

Families of steps (FAMILIES): views and reshapes with symbolic sizes, slicing with
symbolic and negative ends and steps, narrow, cat and stack, expand, repeat and tile (sizes
read from another input), 1-D and 2-D convolutions and pools, pad, index_select / gather /
advanced indexing, split and chunk, matmul between inputs, Python `if`s on sizes,
`torch._check`, unbacked sizes (item(), nonzero()), int and float inputs.  Inputs: x, and
at random y, a tuple or list `xs` of two tensors, a dict `d`, an int `n`, a float `f`, and
a keyword-only tensor `k` (passed in kwargs).

make_case(seed) -> (module, args, kwargs, dynamic_shapes, source); gen_programs.py exports
it.  Every step is valid at the sample shapes (the generator tracks them); what torch
decides about other shapes is the test."""
import math
import random

import torch
from torch.export import Dim

FIRST_SEED = 100000

FAMILIES = ("view", "slice", "narrow", "cat", "expand", "repeat", "conv", "pad", "index", "split", "matmul",
            "if", "check", "unbacked", "int", "float")


class State:
    """The program being written: its lines, parameters, and the sample shape of each tensor
    it can name (h is the running value)."""

    def __init__(self, rng):
        self.rng = rng
        self.lines = []
        self.params = {}
        self.shape = {}     # name -> sample shape (ints; None where only the data decides)
        self.n = None       # the int input's sample
        self.f = None       # the float input's sample
        self.unbacked = False

    def param(self, shape):
        name = f"w{len(self.params)}"
        self.params[name] = list(shape)
        return f"self.{name}"

    def other(self, rank=None, same_last=False):
        """A tensor input other than h (y, xs[0], xs[1], d['a'], k) of the given rank, or None."""
        names = [n for n in self.shape if n != "h" and self.shape[n] is not None and None not in self.shape[n]]
        if rank is not None:
            names = [n for n in names if len(self.shape[n]) == rank]
        if same_last:
            names = [n for n in names if self.shape[n] and self.shape["h"] and self.shape[n][-1] == self.shape["h"][-1]]
        return self.rng.choice(names) if names else None


def module_from_source(name, src, params):
    """A module class `name` whose forward is the source lines src, with a parameter of
    torch.randn values per entry of params (name -> shape), in that order."""
    namespace = {"torch": torch}
    exec("\n".join(src), namespace)
    module = type(name, (torch.nn.Module,), {"forward": namespace["forward"]})()
    for pname, shape in params.items():
        module.register_parameter(pname, torch.nn.Parameter(torch.randn(*shape)))
    return module


def step_view(s, h):
    r, rng = len(h), s.rng
    options = ["flat"]
    if r >= 2:
        options += ["keep0", "keep_last", "merge_first"]
    if r >= 1 and h[0] % 2 == 0 and h[0] >= 2:
        options += ["unflatten"]
    kind = rng.choice(options)
    if kind == "flat":
        s.lines.append(rng.choice(["h = h.reshape(-1)", "h = h.view(-1)", "h = h.flatten()"]))
        return [math.prod(h)]
    if kind == "keep0":
        s.lines.append("h = h.view(h.shape[0], -1)")
        return [h[0], math.prod(h[1:])]
    if kind == "keep_last":
        s.lines.append("h = h.reshape(-1, h.shape[-1])")
        return [math.prod(h[:-1]), h[-1]]
    if kind == "merge_first":
        s.lines.append("h = h.reshape(h.shape[0] * h.shape[1], *h.shape[2:])")
        return [h[0] * h[1]] + h[2:]
    s.lines.append("h = h.unflatten(0, (2, -1))")  # a divisibility by 2
    return [2, h[0] // 2] + h[1:]


def step_slice(s, h):
    rng, d = s.rng, s.rng.randrange(len(h))
    size = h[d]
    pre = ":, " * d
    options = []
    if size >= 2:
        options += ["drop_first", "drop_last", "minus_one", "last_k", "step2"]
    if size >= 3:
        options += ["inner"]
    options += ["head_k"]
    kind = rng.choice(options)
    if kind == "drop_first":
        s.lines.append(f"h = h[{pre}1:]")
        h[d] = size - 1
    elif kind == "drop_last":
        s.lines.append(f"h = h[{pre}:-1]")
        h[d] = size - 1
    elif kind == "minus_one":
        s.lines.append(f"h = h[{pre}:h.shape[{d}] - 1]")
        h[d] = size - 1
    elif kind == "last_k":
        k = rng.randint(1, size)
        s.lines.append(f"h = h[{pre}-{k}:]")
        h[d] = k
    elif kind == "step2":
        s.lines.append(f"h = h[{pre}::2]")
        h[d] = (size + 1) // 2
    elif kind == "inner":
        s.lines.append(f"h = h[{pre}1:-1]")
        h[d] = size - 2
    else:
        k = rng.randint(1, size + 2)  # past the end: torch clamps
        s.lines.append(f"h = h[{pre}:{k}]")
        h[d] = min(k, size)
    return h


def step_narrow(s, h):
    rng, d = s.rng, s.rng.randrange(len(h))
    size = h[d]
    other = s.other()
    if other and s.shape[other][0] <= size and rng.random() < 0.4:  # a length read from another input
        s.lines.append(f"h = h.narrow({d}, 0, {other}.shape[0])")
        h[d] = s.shape[other][0]
    elif size >= 3 and rng.random() < 0.5:
        s.lines.append(f"h = h.narrow({d}, 1, h.shape[{d}] - 2)")
        h[d] = size - 2
    else:
        k = rng.randint(1, size)
        start = rng.randint(0, size - k)
        s.lines.append(f"h = h.narrow({d}, {start}, {k})")
        h[d] = k
    return h


def step_cat(s, h):
    rng = s.rng
    # another input that fits h but for one dim
    for name in rng.sample(list(s.shape), len(s.shape)):
        o = s.shape[name]
        if name == "h" or o is None or None in o or len(o) != len(h):
            continue
        diff = [d for d in range(len(h)) if o[d] != h[d]]
        if len(diff) <= 1:
            d = diff[0] if diff else rng.randrange(len(h))
            s.lines.append(f"h = torch.cat([h, {name}], dim={d})")
            h[d] += o[d]
            return h
    if rng.random() < 0.5:
        s.lines.append("h = torch.stack([h, h * 2], dim=0)")
        return [2] + h
    d = rng.randrange(len(h))
    s.lines.append(f"h = torch.cat([h, h[{':, ' * d}:1]], dim={d})")
    h[d] += 1
    return h


def step_expand(s, h):
    rng = s.rng
    other = s.other()
    if other and len(h) < 4 and rng.random() < 0.5:
        s.lines.append(f"h = h.unsqueeze(0).expand({other}.shape[0], *h.shape)")
        return [s.shape[other][0]] + h
    d = rng.randrange(len(h))
    k = rng.choice([2, 3])
    idx = ", ".join(":" if i != d else ":1" for i in range(len(h)))
    sizes = ", ".join("-1" if i != d else str(k) for i in range(len(h)))
    s.lines.append(f"h = h[{idx}].expand({sizes})")
    h[d] = k
    return h


def step_repeat(s, h):
    rng = s.rng
    other = s.other()
    if other and rng.random() < 0.5:  # a count read from another input's size
        reps = [f"{other}.shape[0]"] + ["1"] * (len(h) - 1)
        s.lines.append(f"h = h.repeat({', '.join(reps)})")
        h[0] *= s.shape[other][0]
        return h
    if rng.random() < 0.5:
        reps = [rng.choice([1, 2]) for _ in h]
        s.lines.append(f"h = h.repeat({', '.join(map(str, reps))})")
        return [a * b for a, b in zip(h, reps)]
    s.lines.append("h = h.tile((2,))")
    h[-1] *= 2
    return h


def step_conv(s, h):
    rng = s.rng
    if len(h) == 2:  # [N, L] -> [N, 1, L]
        s.lines.append("h = h.unsqueeze(1)")
        h = [h[0], 1, h[1]]
    if len(h) == 1:
        s.lines.append("h = h.reshape(1, 1, -1)")
        h = [1, 1, h[0]]
    if len(h) == 3:
        c, length = h[1], h[2]
        k = rng.choice([1, 2, 3])
        stride, pad = rng.choice([1, 2]), rng.choice([0, 1])
        if length + 2 * pad < k:
            return h
        kind = rng.choice(["conv", "conv", "max", "avg", "adaptive"])
        if kind == "conv":
            o = rng.choice([2, 4])
            w = s.param([o, c, k])
            s.lines.append(f"h = torch.nn.functional.conv1d(h, {w}, stride={stride}, padding={pad})")
            return [h[0], o, (length + 2 * pad - k) // stride + 1]
        if kind == "adaptive":
            s.lines.append("h = torch.nn.functional.adaptive_avg_pool1d(h, 1)")
            return [h[0], c, 1]
        k = max(k, 2 * pad) if pad else k
        if k < 2 * pad or length + 2 * pad < k:
            return h
        fn = "max_pool1d" if kind == "max" else "avg_pool1d"
        s.lines.append(f"h = torch.nn.functional.{fn}(h, {k}, stride={stride}, padding={pad if 2 * pad <= k else 0})")
        pad = pad if 2 * pad <= k else 0
        return [h[0], c, (length + 2 * pad - k) // stride + 1]
    if len(h) == 4:
        c, hh, ww = h[1], h[2], h[3]
        k = rng.choice([1, 3])
        if hh + 2 < k or ww + 2 < k:
            return h
        if rng.random() < 0.6:
            o = rng.choice([2, 3])
            w = s.param([o, c, k, k])
            s.lines.append(f"h = torch.nn.functional.conv2d(h, {w}, padding={k // 2})")
            return [h[0], o, hh, ww]
        if hh >= 2 and ww >= 2:
            s.lines.append("h = torch.nn.functional.max_pool2d(h, 2)")
            return [h[0], c, hh // 2, ww // 2]
    return h


def step_pad(s, h):
    rng = s.rng
    a, b = rng.choice([0, 1, 2]), rng.choice([0, 1, 3])
    if len(h) >= 2 and rng.random() < 0.4:
        s.lines.append(f"h = torch.nn.functional.pad(h, ({a}, {b}, 1, 0))")
        h[-1] += a + b
        h[-2] += 1
        return h
    if rng.random() < 0.3:  # a pad as wide as a size
        s.lines.append("h = torch.nn.functional.pad(h, (0, h.shape[-1]))")
        h[-1] *= 2
        return h
    s.lines.append(f"h = torch.nn.functional.pad(h, ({a}, {b}))")
    h[-1] += a + b
    return h


def step_index(s, h):
    rng = s.rng
    kind = rng.choice(["select_arange", "arange_minus", "gather", "int_index", "flip"])
    if kind == "select_arange":
        s.lines.append("h = h.index_select(0, torch.arange(0, h.shape[0], 2))")
        h[0] = (h[0] + 1) // 2
    elif kind == "arange_minus" and h[0] >= 2:
        s.lines.append("h = h[torch.arange(h.shape[0] - 1)]")
        h[0] -= 1
    elif kind == "gather":
        s.lines.append("h = torch.gather(h, -1, torch.zeros(*h.shape[:-1], 1, dtype=torch.long))")
        h[-1] = 1
    elif kind == "int_index" and len(h) >= 2:
        s.lines.append(f"h = h[{rng.randrange(h[0])}]")
        h = h[1:]
    else:
        s.lines.append("h = h.flip(0)")
    return h


def step_split(s, h):
    rng = s.rng
    d = rng.randrange(len(h))
    size = h[d]
    kind = rng.choice(["chunk", "split_k", "split_sizes", "unbind"] if size >= 2 else ["chunk", "split_k"])
    if kind == "chunk":
        c = rng.choice([2, 3])
        s.lines.append(f"h = h.chunk({c}, dim={d})[0]")
        h[d] = -(-size // c)
    elif kind == "split_k":
        k = rng.choice([1, 2, 3])
        s.lines.append(f"h = torch.split(h, {k}, dim={d})[-1]")
        h[d] = size - (size - 1) // k * k
    elif kind == "split_sizes":
        s.lines.append(f"h = h.split([1, h.shape[{d}] - 1], dim={d})[1]")
        h[d] = size - 1
    else:
        s.lines.append(f"h = h.unbind({d})[0]")
        h = h[:d] + h[d + 1:]
    return h


def step_matmul(s, h):
    rng = s.rng
    for name in rng.sample(list(s.shape), len(s.shape)):
        o = s.shape[name]
        if name == "h" or o is None or None in o or len(o) != 2 or o[0] != h[-1]:
            continue
        s.lines.append(f"h = h @ {name}")
        h[-1] = o[1]
        return h
    if len(h) >= 2 and rng.random() < 0.5:
        s.lines.append("h = h @ h.transpose(-1, -2)")
        h[-1] = h[-2]
        return h
    w = s.param([h[-1], rng.choice([2, 5])])
    s.lines.append(f"h = h @ {w}")
    h[-1] = s.params[w.split(".")[1]][1]
    return h


def step_if(s, h):
    rng = s.rng
    d = rng.randrange(len(h))
    other = s.other()
    kind = rng.choice(["gt", "eq_other", "mod", "numel"] if other else ["gt", "mod", "numel"])
    if kind == "gt":
        s.lines += [f"if h.shape[{d}] > {rng.randint(1, 9)}:", "    h = h + 1", "else:", "    h = h - 1"]
    elif kind == "eq_other":
        s.lines += [f"if h.shape[{d}] == {other}.shape[0]:", "    h = h * 2"]
    elif kind == "mod":
        s.lines += [f"if h.shape[{d}] % {rng.choice([2, 3, 4])} == 0:", "    h = h * 3"]
    else:
        s.lines += [f"if h.numel() > {rng.choice([8, 16, 64])}:", "    h = h.relu()"]
    return h


def step_check(s, h):
    rng = s.rng
    d = rng.randrange(len(h))
    size = h[d]
    other = s.other()
    options = [f"h.shape[{d}] >= {rng.choice([1, 2, size])}", f"h.shape[{d}] <= {size + rng.choice([0, 3, 50])}",
               f"h.shape[{d}] != {size + 1}"]
    if size % 2 == 0:
        options.append(f"h.shape[{d}] % 2 == 0")
    if other:
        o = s.shape[other][0]
        if o == size:
            options.append(f"h.shape[{d}] == {other}.shape[0]")
        if size == 2 * o:
            options.append(f"h.shape[{d}] == 2 * {other}.shape[0]")
        if size >= o:
            options.append(f"h.shape[{d}] >= {other}.shape[0]")
    s.lines.append(f"torch._check({rng.choice(options)})")
    return h


def step_unbacked(s, h):
    rng = s.rng
    kind = rng.choice(["item_checked", "item_checked", "nonzero", "mask"])
    if kind == "item_checked":
        s.lines += ["u = (h > 0).sum().item()", "torch._check(u >= 0)", "torch._check(u <= h.shape[0])", "h = h[:u]"]
        s.unbacked = True
        return [None] + h[1:]
    if kind == "nonzero":
        s.lines.append("h = h.nonzero().float()")
        s.unbacked = True
        return [None, len(h)]
    s.lines.append("h = h[h > 0]")
    s.unbacked = True
    return [None]


def step_int(s, h):
    rng = s.rng
    kind = rng.choice(["scale", "slice", "ones", "repeat"])
    if kind == "scale":
        s.lines.append("h = h * n + n")
    elif kind == "slice" and h[0] >= s.n:
        s.lines.append("h = h[:n]")
        h[0] = s.n
    elif kind == "ones" and len(h) == 1:
        s.lines.append("h = h.unsqueeze(0) + torch.ones(n, 1)")
        h = [s.n, h[0]]
    else:
        s.lines.append(f"h = h.repeat(n{', 1' * (len(h) - 1)})")
        h[0] *= s.n
    return h


def step_float(s, h):
    s.lines.append(s.rng.choice(["h = h * f", "h = h + f * 2", "h = (h * f).relu()"]))
    return h


STEPS = {"view": step_view, "slice": step_slice, "narrow": step_narrow, "cat": step_cat, "expand": step_expand,
         "repeat": step_repeat, "conv": step_conv, "pad": step_pad, "index": step_index, "split": step_split,
         "matmul": step_matmul, "if": step_if, "check": step_check, "unbacked": step_unbacked, "int": step_int,
         "float": step_float}


def after_unbacked(s, h):
    """A step on h whose first size only the data decides: elementwise, a reduction, a view
    that keeps it, a check on it, a cat."""
    rng = s.rng
    kind = rng.choice(["relu", "sum", "check", "cat", "view"])
    if kind == "relu":
        s.lines.append("h = h.relu() * 2")
    elif kind == "sum":
        s.lines.append("h = h.sum(0, keepdim=True)")
        return [1] + h[1:]
    elif kind == "check":
        s.lines.append(f"torch._check(h.shape[0] {rng.choice(['>=', '<=', '!='])} {rng.choice([0, 1, 2, 64])})")
    elif kind == "cat":
        s.lines.append("h = torch.cat([h, h], dim=0)")
    elif kind == "view" and len(h) >= 2:
        s.lines.append("h = h.view(h.shape[0], -1)")
        return [None, math.prod(h[1:])]
    return h


def gen_body(s, families):
    s.lines.append("h = x")
    for _ in range(s.rng.randint(2, 5)):
        h = s.shape["h"]
        if None in h:
            s.shape["h"] = after_unbacked(s, list(h))
            continue
        fam = s.rng.choice(families)
        if (fam == "int" and s.n is None) or (fam == "float" and s.f is None):
            fam = "slice"
        s.shape["h"] = STEPS[fam](s, list(h))
        if not s.shape["h"]:  # a scalar: back to a vector
            s.lines.append("h = h.reshape(1)")
            s.shape["h"] = [1]
    s.lines.append("return h")


# ---- specs --------------------------------------------------------------------------------

def dim_spec(rng, size, named, key, wrong):
    """One dim's entry: None, a hint, a named Dim (its range sometimes excluding the sample
    when wrong), a Dim shared by key, or a derived Dim."""
    kind = rng.choice(["none", "auto", "auto", "dynamic", "static", "named", "named", "shared", "derived"])
    if kind == "none":
        return None
    if kind == "auto":
        return Dim.AUTO
    if kind == "dynamic":
        return Dim.DYNAMIC
    if kind == "static":
        return Dim.STATIC
    if kind == "shared":
        key = ("shared", size if not wrong or rng.random() < 0.5 else 0)
        if key not in named:
            named[key] = Dim(f"s{len(named)}", max=rng.choice([64, 1024, 4096]))
        return named[key]
    if kind == "derived":
        root_key = ("root", len(named) % 3)
        if root_key not in named:
            named[root_key] = Dim(f"r{len(named)}", min=rng.choice([0, 1, 2]), max=rng.choice([16, 64, 1024]))
        root = named[root_key]
        a, b = rng.choice([(1, 1), (1, -1), (2, 0), (1, 2), (2, 1)])
        return a * root + b if a != 1 else root + b
    lo = rng.choice([None, 0, 1, 2, max(1, size - 1)] + ([size + 1] if wrong else []))
    hi = rng.choice([None, size + rng.randint(0, 40), 1024] + ([max(0, size - 1)] if wrong else []))
    if lo is not None and hi is not None and lo >= hi:
        hi = lo + 1
    kw = {k: v for k, v in (("min", lo), ("max", hi)) if v is not None}
    named[key] = Dim(f"d{len(named)}", **kw)
    return named[key]


def tensor_spec(rng, shape, named, prefix, wrong):
    entry = {}
    for d, size in enumerate(shape):
        e = dim_spec(rng, size, named, (prefix, d), wrong)
        if e is not None:
            entry[d] = e
    return entry or None


def sample_shape(rng, rank):
    return [rng.choice([2, 3, 4, 5, 6, 8]) for _ in range(rank)]


def make_case(seed):
    """(module, args, kwargs, dynamic_shapes, source) for one seed."""
    rng = random.Random(seed)
    torch.manual_seed(seed)
    s = State(rng)
    families = rng.sample(FAMILIES, rng.randint(2, 5))
    wrong = rng.random() < 0.3  # specs people get wrong: ranges that exclude the sample, unequal dims shared
    x = sample_shape(rng, rng.randint(1, 4 if "conv" in families else 3))
    s.shape["h"] = list(x)
    names, args, kwargs, spec, kw_spec, head = ["x"], [torch.randn(*x)], {}, [], {}, []
    named = {}
    spec.append(tensor_spec(rng, x, named, "x", wrong))
    extra = rng.choice(["none", "y", "y", "tuple", "list", "dict"])
    if extra == "y":
        y = [x[0]] if rng.random() < 0.4 else [x[-1], rng.choice([2, 3])] if rng.random() < 0.5 else sample_shape(rng, rng.randint(1, 2))
        s.shape["y"] = y
        names.append("y")
        args.append(torch.randn(*y))
        spec.append(tensor_spec(rng, y, named, "y", wrong))
    elif extra in ("tuple", "list"):
        a, b = sample_shape(rng, 1) + [x[-1]], [x[0]]
        s.shape["xs[0]"], s.shape["xs[1]"] = a, b
        names.append("xs")
        pair = [torch.randn(*a), torch.randn(*b)]
        args.append(tuple(pair) if extra == "tuple" else pair)
        entries = [tensor_spec(rng, a, named, "xs0", wrong), tensor_spec(rng, b, named, "xs1", wrong)]
        spec.append(tuple(entries) if extra == "tuple" else entries)
    elif extra == "dict":
        a = [x[0]] if rng.random() < 0.5 else sample_shape(rng, 2)
        s.shape["d['a']"] = a
        names.append("d")
        args.append({"a": torch.randn(*a)})
        spec.append({"a": tensor_spec(rng, a, named, "da", wrong)})
    if "int" in families:
        s.n = rng.randint(2, 5)
        names.append("n")
        args.append(s.n)
        spec.append(rng.choice([None, Dim.DYNAMIC, Dim.AUTO]))
    if "float" in families:
        s.f = rng.choice([0.5, 2.0, -1.5])
        names.append("f")
        args.append(s.f)
        spec.append(None)
    if rng.random() < 0.15:  # a keyword-only tensor
        k = [x[-1]]
        s.shape["k"] = k
        kwargs["k"] = torch.randn(*k)
        kw_spec["k"] = tensor_spec(rng, k, named, "k", wrong)
        head.append("x = x + k")
    gen_body(s, list(families))
    sig = ", ".join(names) + (", *, k" if kwargs else "")
    src = [f"# families: {', '.join(sorted(families))}; inputs: {extra}{' wrong' if wrong else ''}",
           f"def forward(self, {sig}):"] + ["    " + line for line in head + s.lines]
    module = module_from_source(f"F{seed}", src, s.params)
    ds = dict(zip(names, spec))
    ds.update(kw_spec)
    return module.eval(), tuple(args), kwargs, ds, "\n".join(src)
