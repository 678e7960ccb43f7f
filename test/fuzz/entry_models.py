#!/usr/bin/python3
"""The libraries fuzz_entry calls: a few small programs exported once by shapec, each with
its sample input shapes beside it (OUTDIR/NAME/model.so and OUTDIR/NAME/fuzz.txt).

fuzz.txt, read by fuzz_entry.c: one line per input, `in RANK D0 D1 ...` (the sample's
shape); `mutates` when the program writes back to an input; `reads_data` when its output
shapes depend on the inputs' data.  A program that does not
export is left out with a message; an export is kept while model.so is newer than shapec.

usage: entry_models.py SHAPEC SOURCE_DIR OUTDIR [NAME...]"""
import ast
import json
import os
import struct
import subprocess
import sys
import zipfile

shapec, src, out = sys.argv[1:4]
real = os.path.join(src, "test", "real", "corpus", "2.14")


def sample_shapes(case):
    with open(os.path.join(real, case, "answers.json")) as f:
        return [s["shape"] for s in json.load(f)["sample_inputs"]]


def npy_shapes(folder, names):
    """The shapes in the headers of .npy files (format 1.0: magic, version, a 2-byte length)."""
    shapes = []
    for n in names:
        with open(os.path.join(folder, n + ".npy"), "rb") as f:
            head = f.read(10)
            header = f.read(struct.unpack("<H", head[8:10])[0]).decode("latin1")
        shapes.append(list(ast.literal_eval(header)["shape"]))
    return shapes


# name: (the model, the spec or None, the sample shapes)
MODELS = {
    "tutorial": (os.path.join(src, "examples", "tutorial", "model.json"), os.path.join(src, "examples", "tutorial", "spec.json"),
                 lambda: npy_shapes(os.path.join(src, "examples", "tutorial", "inputs"), "wxyz")),
    "gather": (os.path.join(src, "test", "fuzz", "entry", "gather.json"), None, lambda: [[4, 5], [3, 6]]),
    "index_select": (os.path.join(real, "index_select", "model.pt2"), None, lambda: sample_shapes("index_select")),
    "embedding": (os.path.join(real, "embedding", "model.pt2"), None, lambda: sample_shapes("embedding")),
    "conv_pool": (os.path.join(real, "conv_pool", "model.pt2"), None, lambda: sample_shapes("conv_pool")),
    "sdpa": (os.path.join(real, "sdpa", "model.pt2"), None, lambda: sample_shapes("sdpa")),
    "mutate_input": (os.path.join(real, "mutate_input", "model.pt2"), None, lambda: sample_shapes("mutate_input")),
    "nonzero": (os.path.join(real, "nonzero", "model.pt2"), None, lambda: sample_shapes("nonzero")),
}


def model_text(model):
    if model.endswith(".pt2"):
        z = zipfile.ZipFile(model)
        name = next(n for n in z.namelist() if n.endswith("models/model.json") or n == "serialized_exported_program.json")
        return z.read(name).decode()
    with open(model) as f:
        return f.read()


def flags(model, folder):
    """`mutates` where the export's report lists an input the program writes back to;
    `reads_data` where output shapes depend on data (item, nonzero)."""
    out = []
    with open(os.path.join(folder, "constraints.json")) as f:
        if any(m.get("kind") == "user_input" for m in json.load(f).get("mutations") or []):
            out.append("mutates")
    text = model_text(model)
    if any(op in text for op in ("aten.nonzero", "aten._local_scalar_dense", "aten.item", "aten.masked_select")):
        out.append("reads_data")
    return out


def main():
    names = sys.argv[4:] or list(MODELS)
    made = 0
    for name in names:
        model, spec, shapes = MODELS[name]
        folder = os.path.join(out, name)
        lib = os.path.join(folder, "model.so")
        if not (os.path.exists(lib) and os.path.getmtime(lib) > os.path.getmtime(shapec)):
            cmd = [shapec, "export", model, "-o", folder, "-q"] + (["--dynamic", spec] if spec else [])
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode:
                print(f"entry_models: {name} does not export: {r.stderr.strip()[:300]}", file=sys.stderr)
                continue
        with open(os.path.join(folder, "fuzz.txt"), "w") as f:
            for shape in shapes():
                f.write(" ".join(["in", str(len(shape))] + [str(d) for d in shape]) + "\n")
            for flag in flags(model, folder):
                f.write(flag + "\n")
        made += 1
    print(f"entry_models: {made} libraries in {out}")
    return 0 if made else 1


sys.exit(main())
