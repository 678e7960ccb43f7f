"""converter_reference.py - torch's side of test_converter.py, run in a real-torch chroot:
loads an archive torch2shapec wrote, and writes torch's range constraints and the outputs
of ep.module() at the given shapes (inputs sin(0.01*i + k), as test_corpus.py builds them).

    scripts/real-torch.sh --torch 2.14 run test/real/converter_reference.py MODEL.pt2 SHAPES.json OUT.json"""
import json
import sys

import torch
import torch.utils._pytree as pytree


def filled(shape, k):
    n = 1
    for d in shape:
        n *= d
    return torch.sin(torch.arange(n, dtype=torch.float64) * 0.01 + k).to(torch.float32).reshape(shape)


def bound(v):
    """A range end as an int, None where unbounded (sympy's oo, torch's int_oo)."""
    try:
        v = int(v)
    except (TypeError, ValueError, OverflowError, AttributeError):
        return None
    return None if abs(v) >= 2 ** 62 else v


def main(model, shapes_path, out_path):
    ep = torch.export.load(model)
    out = {"torch": torch.__version__,
           "range_constraints": {str(k): [bound(getattr(v, "lower", None)), bound(getattr(v, "upper", None))]
                                 for k, v in ep.range_constraints.items()},
           "guards_code": list(getattr(ep, "_guards_code", []) or []), "runs": []}
    for shapes in json.load(open(shapes_path)):
        run = {"shapes": shapes}
        try:
            with torch.no_grad():
                outs = ep.module()(*[filled(s, k) for k, s in enumerate(shapes)])
            run["outputs"] = [{"shape": list(o.shape), "data": o.flatten().tolist()} for o in pytree.tree_leaves(outs)]
        except Exception as e:  # noqa: BLE001 - torch's verdict at this shape
            run["error"] = f"{type(e).__name__}: {e}"[:500]
        out["runs"].append(run)
    with open(out_path, "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main(*sys.argv[1:4])
