"""gen_corpus.py - exports every case of cases.py with the real torch it runs under and
writes, beside each program, torch's own answers (test/real/README.md).

    scripts/real-torch.sh --torch 2.14 run test/real/gen_corpus.py [NAME...]
    scripts/real-torch.sh --torch 2.6 run test/real/gen_corpus.py [NAME...]

Writes test/real/corpus/<torch major.minor>/<case>/: model.pt2 (torch.export.save),
decomposed.pt2 (after run_decompositions()), answers.json; the big zoo models as
model.pt2.thin and model.pt2.weights.json (thin.py)."""
import json
import math
import os
import sys
import traceback
import zlib

import torch
import torch.utils._pytree as pytree

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402
import thin  # noqa: E402

VERSION = ".".join(torch.__version__.split("+")[0].split(".")[:2])
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", VERSION)
MAX_DATA = 20000  # elements of a tensor stored with its values
MAX_PROBES = 40
BIG = ("zoo_resnet18", "zoo_mobilenet_v2", "tv_swin_t", "tv_swin_v2_t", "tv_convnext_tiny", "tv_efficientnet_b0", "tv_mobilenet_v3_small",
       "tv_shufflenet_v2_x0_5", "tv_squeezenet1_1", "tv_mnasnet0_5", "tv_regnet_y_400mf", "tv_googlenet", "tv_densenet121",
       "tv_lraspp_mobilenet_v3", "tv_deeplabv3_mobilenet_v3", "tv_r3d_18", "tv_raft_small")  # stored thin (thin.py)


def sig(v):
    """A float with 7 significant digits: enough for a 1e-4 relative comparison."""
    if isinstance(v, bool) or isinstance(v, int):
        return v
    if math.isnan(v) or math.isinf(v):
        return str(v)
    return float("%.7g" % v)


def tensor_json(t):
    out = {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", "")}
    if t.numel() <= MAX_DATA:
        out["data"] = [sig(v) for v in t.detach().flatten().tolist()]
    else:
        out["sum"] = sig(float(t.double().sum()))
    return out


def value_json(v):
    if isinstance(v, torch.Tensor):
        return tensor_json(v)
    if isinstance(v, (bool, int, float)):
        return {"value": sig(v) if isinstance(v, float) else v}
    return {"repr": repr(v)}


def leaves(args, kwargs):
    flat, spec = pytree.tree_flatten((args, kwargs))
    paths = [pytree.keystr(p) for p, _ in pytree.tree_flatten_with_path((args, kwargs))[0]]
    return flat, spec, paths


def bound(v):
    if v is None:
        return None
    try:
        i = int(v)
    except (TypeError, ValueError, OverflowError, AttributeError):
        return None
    return i if abs(i) < 2**62 else None


def range_constraints(ep):
    return {str(k): [bound(v.lower), bound(v.upper)] for k, v in ep.range_constraints.items()}


def runtime_asserts(ep):
    out = []
    for n in ep.graph.nodes:
        if n.op == "call_function" and "assert" in str(n.target):
            out.append({"target": str(n.target), "args": [str(a) for a in n.args]})
    return out


def error_json(e):
    msg = str(e)
    return {"error": type(e).__name__, "message": msg[:4000]}


def probe_values(size, sym_range):
    vals = {0, 1, 2, size + 1, size * 2}
    if sym_range:
        lo, hi = sym_range
        for v in (lo, hi, None if lo is None else lo - 1, None if hi is None else hi + 1):
            if v is not None and 0 <= v <= 4096:
                vals.add(v)
    vals.discard(size)
    return sorted(v for v in vals if 0 <= v <= 4096)


def make_like(t, shape):
    if t.dtype.is_floating_point:
        return torch.randn(*shape, dtype=t.dtype)
    if t.dtype == torch.bool:
        return torch.rand(*shape) > 0.5
    hi = max(1, int(t.max()) + 1) if t.numel() else 2
    return torch.randint(0, hi, shape, dtype=t.dtype)


def probes(ep, args, kwargs, rc):
    """Each tensor dim moved alone to sizes inside, at and past its symbol's range, 0 and 1."""
    flat, spec, paths = leaves(args, kwargs)
    metas = {}
    user_inputs = [s for s in ep.graph_signature.input_specs if s.kind.name == "USER_INPUT"]
    placeholders = {n.name: n for n in ep.graph.nodes if n.op == "placeholder"}
    tensor_leaves = [i for i, v in enumerate(flat) if isinstance(v, torch.Tensor)]
    for k, s in zip(tensor_leaves, [s for s in user_inputs if hasattr(s.arg, "name") and s.arg.name in placeholders and
                                    "val" in placeholders[s.arg.name].meta and
                                    isinstance(placeholders[s.arg.name].meta["val"], torch.Tensor)]):
        metas[k] = placeholders[s.arg.name].meta["val"].shape
    out = []
    module = ep.module()
    for k in tensor_leaves:
        t = flat[k]
        for d in range(t.dim()):
            sym = str(metas[k][d]) if k in metas and d < len(metas[k]) else None
            for v in probe_values(t.shape[d], rc.get(sym)):
                if len(out) >= MAX_PROBES:
                    return out
                shape = list(t.shape)
                shape[d] = v
                new = [v.clone() if isinstance(v, torch.Tensor) else v for v in flat]  # a program may update its inputs
                new[k] = make_like(t, shape)
                entry = {"leaf": paths[k], "dim": d, "size": v, "shapes": [list(x.shape) if isinstance(x, torch.Tensor)
                                                                            else None for x in new]}
                entry["verdict"] = verdict(module, new, spec)
                out.append(entry)
    # each int, float or bool input moved alone (a static one must equal the traced value)
    for k, v in enumerate(flat):
        if isinstance(v, bool):
            moves = [not v]
        elif isinstance(v, int):
            moves = sorted({v - 1, v + 1, 0, 1, -1, 2 * v + 3} - {v})
        elif isinstance(v, float):
            moves = [v + 0.5]
        else:
            continue
        for m in moves:
            if len(out) >= MAX_PROBES:
                return out
            new = [x.clone() if isinstance(x, torch.Tensor) else x for x in flat]
            new[k] = m
            out.append({"leaf": paths[k], "dim": None, "size": m,
                        "shapes": [list(x.shape) if isinstance(x, torch.Tensor) else None for x in new],
                        "values": [None if isinstance(x, torch.Tensor) else x for x in new],
                        "verdict": verdict(module, new, spec)})
    return out


def verdict(module, flat, spec):
    """ep.module()'s verdict on these leaves: "ok", or the exception."""
    pargs, pkwargs = pytree.tree_unflatten(flat, spec)
    try:
        with torch.no_grad():
            module(*pargs, **pkwargs)
        return "ok"
    except Exception as e:  # noqa: BLE001 - torch's verdict, whatever it is
        return error_json(e)


def filled(shape, k):
    """A deterministic input that numpy rebuilds the same way: sin over the flat index."""
    n = 1
    for d in shape:
        n *= d
    return torch.sin(torch.arange(n, dtype=torch.float64) * 0.01 + k).to(torch.float32).reshape(shape)


def filled_int(shape, k, lo, hi):
    """A deterministic integer input in [lo, hi] that numpy rebuilds the same way (token
    ids below a vocabulary's size; an attention mask of ones is [1, 1])."""
    n = 1
    for d in shape:
        n *= d
    i = torch.arange(n, dtype=torch.int64)
    return (lo + (i * 7919 + 13 * k) % (hi - lo + 1)).reshape(shape)


def output_json(t):
    out = {"shape": list(t.shape), "sum": sig(float(t.double().sum()))}
    flat = t.detach().flatten()
    out["head"] = [sig(v) for v in flat[:2000].tolist()]
    return out


def zoo_runs(ep, rc, int_ranges=None):
    """The zoo at three or more shapes: every symbol at its range's low end (1 where the
    range starts at 0), at the sample, and at its high end (or the sample plus 5 when
    unbounded), plus every symbol at 0 where a range starts at 0; inputs from filled(),
    outputs (or the exception) from ep.module()."""
    placeholders = [n for n in ep.graph.nodes if n.op == "placeholder"]
    users = [s.arg.name for s in ep.graph_signature.input_specs if s.kind.name == "USER_INPUT"]
    metas = [next(n for n in placeholders if n.name == u).meta["val"] for u in users]
    hints = {}
    for m in metas:
        for d in m.shape:
            if isinstance(d, torch.SymInt) and d.node.expr.is_Symbol:
                hints[d.node.expr] = d.node.hint
    lows = {sym: (rc.get(str(sym), [None, None])[0] or 0) for sym in hints}
    runs = []
    for which in ("low", "sample", "high", "zero"):
        if which == "zero" and not any(lo == 0 for lo in lows.values()):
            continue
        values = {}
        for sym, hint in hints.items():
            lo, hi = rc.get(str(sym), [None, None])
            values[sym] = {"low": max(lows[sym], 1), "sample": hint, "high": hi if hi is not None else hint + 5,
                           "zero": lows[sym]}[which]
        shapes = [[int(d.node.expr.subs(values)) if isinstance(d, torch.SymInt) else int(d) for d in m.shape]
                  for m in metas]
        # an integer input k takes values in int_ranges[k] (default [0, 9])
        ranges = {k: list((int_ranges or {}).get(k, (0, 9))) for k, m in enumerate(metas) if not m.is_floating_point()}
        inputs = [filled_int(sh, k, *ranges[k]) if k in ranges else filled(sh, k) for k, sh in enumerate(shapes)]
        run = {"at": which, "symbols": {str(k): int(v) for k, v in values.items()}, "shapes": shapes}
        if ranges:
            run["int_ranges"] = {str(k): v for k, v in ranges.items()}
        try:
            with torch.no_grad():
                outs = ep.module()(*inputs)
            run["outputs"] = [output_json(o) for o in pytree.tree_leaves(outs)]
        except Exception as e:  # noqa: BLE001 - torch's verdict at this shape
            run["error"] = error_json(e)
        runs.append(run)
    return runs


def export_case(name, module, args, ds, kwargs, out_root=None, also_static=False, decompose=True, int_ranges=None):
    """Exports one case into out_root/name (default: the corpus); also_static also saves
    static.pt2, the program exported without dynamic_shapes (what `shapec export --dynamic`
    re-applies a spec to; the differential tester, test/diff/)."""
    d = os.path.join(out_root or OUT, name)
    os.makedirs(d, exist_ok=True)
    answers = {"torch": torch.__version__, "case": name}
    flat, _, paths = leaves(args, kwargs)
    answers["sample_inputs"] = [dict(value_json(v), path=p) for v, p in zip(flat, paths)]
    write_spec(d, ds, args, kwargs)
    try:
        ep = torch.export.export(module, args, kwargs=kwargs, dynamic_shapes=ds)
    except Exception as e:  # noqa: BLE001
        answers["export"] = error_json(e)
        if also_static:
            save_static(module, args, kwargs, d, answers)
        write_answers(d, answers)
        return "refused"
    answers["export"] = "ok"
    torch.export.save(ep, os.path.join(d, "model.pt2"))
    if also_static:
        save_static(module, args, kwargs, d, answers)
    # decomposed before any call (ep.module() calls update ep's own buffers), from the saved
    # file: run_decompositions() can change ep's own metas (a split whose piece an in-place op
    # updates left its placeholder specialized), and the answers must be the file's
    try:
        if decompose:
            dep = torch.export.load(os.path.join(d, "model.pt2")).run_decompositions()
            torch.export.save(dep, os.path.join(d, "decomposed.pt2"))
        answers["decomposed"] = "ok" if decompose else "not asked"
    except Exception as e:  # noqa: BLE001
        answers["decomposed"] = error_json(e)
    rc = range_constraints(ep)
    answers["range_constraints"] = rc
    answers["inputs"] = []
    for n in ep.graph.nodes:
        if n.op == "placeholder":
            v = n.meta.get("val")
            shape = [str(s) for s in v.shape] if isinstance(v, torch.Tensor) else None
            answers["inputs"].append({"name": n.name, "shape": shape, "value": None if shape else str(v)})
    answers["guards_code"] = list(getattr(ep, "_guards_code", []) or [])
    answers["runtime_asserts"] = runtime_asserts(ep)
    with torch.no_grad():
        fresh = pytree.tree_map(lambda v: v.clone() if isinstance(v, torch.Tensor) else v, (args, kwargs))
        outs = ep.module()(*fresh[0], **fresh[1])  # copies: a program may update its inputs
    answers["sample_outputs"] = [value_json(v) for v in pytree.tree_leaves(outs)]
    answers["probes"] = probes(ep, args, kwargs, rc)
    if name.startswith(("zoo_", "hf_", "tv_")):
        answers["zoo_runs"] = zoo_runs(ep, rc, int_ranges)
    if name.startswith("mutate_"):
        answers["repeated_calls"] = {f: repeated_calls(os.path.join(d, f), args, kwargs)
                                     for f in ("model.pt2", "decomposed.pt2") if os.path.exists(os.path.join(d, f))}
    write_answers(d, answers)
    return "ok"


def export_and_thin(name, module, args, ds, kwargs, recipes=None, int_ranges=None):
    """export_case, then each archive stored thin (thin.py) where recipes are given."""
    verdict = export_case(name, module, args, ds, kwargs, int_ranges=int_ranges)
    if recipes is not None:
        for f in ("model.pt2", "decomposed.pt2"):
            if os.path.exists(os.path.join(OUT, name, f)):
                thin.thin(os.path.join(OUT, name, f), recipes)
    return verdict


def repeated_calls(path, args, kwargs):
    """Three calls of a freshly loaded program's ep.module() on copies of the sample inputs:
    the outputs, and the inputs as the call left them (in-place updates, buffers' state)."""
    m = torch.export.load(path).module()
    calls = []
    for _ in range(3):
        a, k = pytree.tree_map(lambda v: v.clone() if isinstance(v, torch.Tensor) else v, (args, kwargs))
        try:
            with torch.no_grad():
                outs = m(*a, **k)
            calls.append({"outputs": [value_json(v) for v in pytree.tree_leaves(outs)],
                          "inputs_after": [value_json(v) for v in pytree.tree_leaves((a, k))]})
        except Exception as e:  # noqa: BLE001
            calls.append({"error": error_json(e)})
    return calls


def save_static(module, args, kwargs, d, answers):
    # fresh tensors: an export with dynamic_shapes leaves its marks on the ones it was given
    args, kwargs = pytree.tree_map(lambda v: v.clone() if isinstance(v, torch.Tensor) else v, (args, kwargs))
    try:
        torch.export.save(torch.export.export(module, args, kwargs=kwargs), os.path.join(d, "static.pt2"))
        answers["static"] = "ok"
    except Exception as e:  # noqa: BLE001
        answers["static"] = error_json(e)


def write_spec(d, ds, args, kwargs):
    """The spec as torch serializes it (shapec export --dynamic reads this form)."""
    if ds is None:
        return
    from torch._export.serde.dynamic_shapes import _dump_dynamic_shapes

    try:
        dumped = _dump_dynamic_shapes(ds, args, kwargs, to_dict=True)
    except Exception as e:  # noqa: BLE001 - a spec torch cannot dump is recorded as such
        dumped = dump_with_int_hints(ds, args, kwargs) or {"unserializable": error_json(e)}
    with open(os.path.join(d, "spec.json"), "w") as f:
        json.dump(dumped, f, indent=1, sort_keys=True)
        f.write("\n")


def dump_with_int_hints(ds, args, kwargs):
    """torch 2.14 cannot serialize AUTO or DYNAMIC on an int argument ("expected None"),
    though export takes it: the spec is dumped with None there and the hint written in
    torch's spelling afterwards ("_DimHint.DYNAMIC", which shapec reads for an int).
    None when that is not the trouble."""
    from torch._export.serde.dynamic_shapes import _dump_dynamic_shapes
    from torch.export.dynamic_shapes import _DimHint
    names = list(ds) if isinstance(ds, dict) else None
    entries = list(ds.values()) if names else list(ds)
    hints = {i: e for i, e in enumerate(entries) if isinstance(e, _DimHint)}
    if not hints or kwargs:
        return None
    cleaned = [None if i in hints else e for i, e in enumerate(entries)]
    try:
        dumped = _dump_dynamic_shapes(dict(zip(names, cleaned)) if names else tuple(cleaned), args, kwargs, to_dict=True)
    except Exception:  # noqa: BLE001
        return None
    shapes = list(dumped["dynamic_shapes"])
    for i, e in hints.items():
        shapes[i] = f"_DimHint.{e.type.name}"
    dumped["dynamic_shapes"] = shapes
    return dumped


def write_answers(d, answers):
    with open(os.path.join(d, "answers.json"), "w") as f:
        json.dump(answers, f, indent=1, sort_keys=True)
        f.write("\n")


def main(names):
    torch.manual_seed(0)
    big, recipes = cases.zoo_big_cases() if not names or any(n in BIG for n in names) else ([], {})
    all_cases = cases.small_cases() + cases.zoo_cases() + big
    counts = {}
    for name, module, args, ds, kwargs in all_cases:
        if names and name not in names:
            continue
        torch.manual_seed(zlib.crc32(name.encode()) % 1000)
        try:
            # the big ones' weights are recomputed by the tests, not stored
            verdict = export_and_thin(name, module.eval(), args, ds, kwargs, recipes if name in BIG else None)
        except Exception:  # noqa: BLE001 - a generator bug, not torch's verdict
            traceback.print_exc()
            verdict = "generator-error"
        counts[verdict] = counts.get(verdict, 0) + 1
        print(f"{VERSION} {name}: {verdict}", flush=True)
    print(f"torch {torch.__version__}: {counts}")


if __name__ == "__main__":
    main(sys.argv[1:])
