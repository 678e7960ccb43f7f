"""thin.py - big weights out of git: thin archives and the recipe that restores them.

resnet18 and mobilenet_v2 carry 14 to 47 MB of weights, too much for the corpus.  Their
weights are not random: gen_corpus.py fills every floating-point parameter and buffer with
a formula (fill()) before export, so the payloads torch writes can be recomputed.  thin()
takes each weight payload bigger than THRESHOLD bytes that a recipe makes out of torch's archive -- also
inside the nested torch.save zip of the 2.1-2.7 layout -- and writes model.pt2.thin plus
model.pt2.weights.json, which lists for each payload its place, size, SHA-256 and recipe.
restore() writes the archive back: every payload recomputed with NumPy and checked against
its SHA-256, so the bytes shapec reads are the bytes torch wrote.  Only the zip container
differs (Python's zipfile instead of torch's writer: no alignment padding).

The formula uses integer arithmetic and correctly rounded float64 operations only, so
torch and NumPy give the same float32 bits:

    q = (i * 7919 + seed) % 2001 - 1000          (int64, i = flat index)
    value = float32((q / 1000.0) * scale + offset)   (float64 arithmetic)
"""
import hashlib
import io
import json
import math
import zipfile

THRESHOLD = 256


def recipe_for(name, shape, index):
    """The recipe of one floating-point parameter or buffer, from its name and shape:
    weights scaled by their fan-in, norm scales near 1, variances positive."""
    seed = 17 * index + 3
    leaf = name.rsplit(".", 1)[-1]
    if leaf == "running_var":
        return {"seed": seed, "scale": 0.2, "offset": 1.0}
    if leaf in ("running_mean", "bias"):
        return {"seed": seed, "scale": 0.1, "offset": 0.0}
    if len(shape) <= 1:  # a norm's weight
        return {"seed": seed, "scale": 0.1, "offset": 1.0}
    fan_in = math.prod(shape[1:])
    return {"seed": seed, "scale": math.sqrt(3.0 / fan_in), "offset": 0.0}


def fill(module):
    """Sets every floating-point parameter and buffer of module by its recipe (torch).
    Returns {sha256 of the float32 bytes: recipe with numel}."""
    import torch

    by_hash = {}
    state = module.state_dict(keep_vars=True)
    for index, (name, t) in enumerate(state.items()):
        if not t.is_floating_point():
            continue
        rec = recipe_for(name, list(t.shape), index)
        i = torch.arange(t.numel(), dtype=torch.int64)
        q = (i * 7919 + rec["seed"]) % 2001 - 1000
        v = ((q.double() / 1000.0) * rec["scale"] + rec["offset"]).float().reshape(t.shape)
        with torch.no_grad():
            t.copy_(v)
        data = v.numpy().tobytes()
        by_hash[hashlib.sha256(data).hexdigest()] = dict(rec, numel=t.numel())
    return by_hash


def values(rec):
    """The float32 bytes of a recipe (NumPy)."""
    import numpy as np

    i = np.arange(rec["numel"], dtype=np.int64)
    q = (i * 7919 + rec["seed"]) % 2001 - 1000
    return (((q.astype(np.float64) / 1000.0) * rec["scale"]) + rec["offset"]).astype(np.float32).tobytes()


def _thin_zip(data, recipes, where, removed):
    """A zip's bytes without its big payloads (recursing into nested .pt zips)."""
    src = zipfile.ZipFile(io.BytesIO(data))
    buf = io.BytesIO()
    # the thin archive itself deflated (its program's JSON shrinks tenfold); restore()
    # writes every level stored, as torch does
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED if where else zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            payload = src.read(info.filename)
            if info.filename.endswith(".pt") and payload[:2] == b"PK":
                payload = _thin_zip(payload, recipes, where + [info.filename], removed)
            elif len(payload) > THRESHOLD and hashlib.sha256(payload).hexdigest() in recipes:
                digest = hashlib.sha256(payload).hexdigest()
                removed.append({"entry": where + [info.filename], "bytes": len(payload), "sha256": digest,
                                "recipe": recipes[digest]})
                payload = b""  # an empty entry keeps the archive's order
            dst.writestr(info.filename, payload)
    return buf.getvalue()


def thin(archive, recipes):
    """Replaces ARCHIVE by ARCHIVE.thin and ARCHIVE.weights.json."""
    import os

    removed = []
    with open(archive, "rb") as f:
        data = _thin_zip(f.read(), recipes, [], removed)
    with open(archive + ".thin", "wb") as f:
        f.write(data)
    with open(archive + ".weights.json", "w") as f:
        json.dump({"about": "payloads taken out of the archive; test/real/thin.py restores them",
                   "payloads": removed}, f, indent=1)
        f.write("\n")
    os.remove(archive)


def _restore_zip(data, payloads, where):
    src = zipfile.ZipFile(io.BytesIO(data))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as dst:
        here = {p["entry"][-1]: p for p in payloads if p["entry"][:-1] == where}
        for info in src.infolist():
            name = info.filename
            payload = src.read(name)
            if name.endswith(".pt") and payload[:2] == b"PK":
                payload = _restore_zip(payload, payloads, where + [name])
            elif name in here:
                p = here[name]
                payload = values(p["recipe"])
                if len(payload) != p["bytes"] or hashlib.sha256(payload).hexdigest() != p["sha256"]:
                    raise ValueError(f"{'/'.join(p['entry'])}: the recipe does not give the bytes torch wrote")
            dst.writestr(name, payload)
    return buf.getvalue()


def restore(thin_path, out_path):
    """Writes the full archive of THIN_PATH (NAME.pt2.thin) to OUT_PATH."""
    with open(thin_path[:-len(".thin")] + ".weights.json") as f:
        payloads = json.load(f)["payloads"]
    with open(thin_path, "rb") as f:
        data = _restore_zip(f.read(), payloads, [])
    with open(out_path, "wb") as f:
        f.write(data)
