"""derived_cases.py - hand-written programs of the differential tester's fixed set
(p90001-p90014): a Dim's derived sizes as torch.export 2.14 writes them (issue 63), one
case per way torch orients them (passes/derived_roots.h); p90012: the fix that names a
tuple input's dim; p90013-p90014: where ep.module() stops running a root below 0 (x: [r +
1] of 0 rows runs while no tensor is r rows).

    scripts/real-torch.sh --torch 2.14 run test/diff/derived_cases.py OUTDIR

Writes OUTDIR/p<n>/ as gen_programs.py does (program.py, spec.json, answers.json, and
model.pt2, or auto.pt2 where torch refuses the spec)."""
import os
import sys

import torch
from torch.export import Dim

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "real"))
sys.path.insert(0, HERE)
import gen_corpus  # noqa: E402
import gen_programs  # noqa: E402

r = Dim("r", min=1, max=16)


class One(torch.nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, x):
        return self.f(x)


class Two(torch.nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, x, y):
        return self.f(x, y)


class WithTuple(torch.nn.Module):
    def forward(self, x, xs):
        torch._check(x.shape[0] == 2 * xs[1].shape[0])
        return x * 2, xs[0] + 1, xs[1] + 1


def at_most_8(x):
    torch._check(x.shape[0] <= 8)
    return x * 2


def y_at_most_8(x, y):
    torch._check(y.shape[0] <= 8)
    return x.sum() + y


def x_at_most_8(x, y):
    torch._check(x.shape[0] <= 8)
    return x.sum() + y


# seed: (what, module, sample inputs, dynamic_shapes)
CASES = {
    90001: ("a phantom Dim's r - 1: a size of its own in [0, 15]", One(lambda x: x * 2), (torch.randn(5),),
            {"x": {0: r - 1}}),
    90002: ("x: r, y: r - 1: written in y's size (x = s + 1)", Two(lambda x, y: x.sum() + y),
            (torch.randn(6), torch.randn(5)), {"x": {0: r}, "y": {0: r - 1}}),
    90003: ("a phantom Dim's r + 1 stays r + 1, r from 2", One(lambda x: x * 2), (torch.randn(5),), {"x": {0: r + 1}}),
    90004: ("a phantom Dim's 2*r + 1", One(lambda x: x * 2), (torch.randn(5),), {"x": {0: 2 * r + 1}}),
    90005: ("a guard on a phantom Dim's r - 1: a violation named r - 1, no fix", One(at_most_8), (torch.randn(5),),
            {"x": {0: r - 1}}),
    90006: ("a guard on y of r - 1: the fix is r's range, shifted", Two(y_at_most_8),
            (torch.randn(6), torch.randn(5)), {"x": {0: r}, "y": {0: r - 1}}),
    90007: ("r + 1 and r - 1 of a phantom Dim: x = s + 2", Two(lambda x, y: x.sum() + y),
            (torch.randn(7), torch.randn(5)), {"x": {0: r + 1}, "y": {0: r - 1}}),
    90008: ("2*r and r - 1: x = 2*s + 2", Two(lambda x, y: x.sum() + y), (torch.randn(12), torch.randn(5)),
            {"x": {0: 2 * r}, "y": {0: r - 1}}),
    90009: ("a guard on a phantom Dim's r + 1 narrows r silently", One(at_most_8), (torch.randn(5),),
            {"x": {0: r + 1}}),
    90010: ("a guard on x of r with y of r - 1: the violation names r - 1", Two(x_at_most_8),
            (torch.randn(6), torch.randn(5)), {"x": {0: r}, "y": {0: r - 1}}),
    90011: ("a phantom Dim's r - 1 with a sample of 1: specialized, no fix", One(lambda x: x * 2), (torch.randn(1),),
            {"x": {0: r - 1}}),
    90012: ("a Dim twice an AUTO dim of a tuple's second tensor: the fix names that dim", WithTuple(),
            (torch.randn(8), (torch.randn(3), torch.randn(4))), {"x": {0: Dim("d", min=2, max=64)},
                                                                   "xs": (None, {0: Dim.AUTO})}),
    90013: ("a phantom Dim's r + 1 sliced to r rows: torch guards -1 + x.size()[0] >= 2, where x * 2 alone runs "
            "0 rows (p90003)", One(lambda x: x[1:] * 2),
            (torch.randn(5),), {"x": {0: r + 1}}),
    90014: ("a phantom Dim's r + 1 narrowed to r rows: the same guard", One(lambda x: x.narrow(0, 0, x.shape[0] - 1) + 1),
            (torch.randn(5),), {"x": {0: r + 1}}),
}


def main(out):
    for seed, (what, module, args, ds) in CASES.items():
        name = f"p{seed}"
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "program.py"), "w") as f:
            f.write(f"# {what}; dynamic_shapes: {ds!r}\n")
        verdict = gen_corpus.export_case(name, module, args, ds, {}, out_root=out, also_static=True, decompose=False)
        static = os.path.join(d, "static.pt2")
        if (verdict == "ok" or gen_programs.save_auto(module, args, d)) and os.path.exists(static):
            os.remove(static)
        print(name, verdict, flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
