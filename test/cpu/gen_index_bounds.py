"""gen_index_bounds.py - programs that read or write memory at indices from their inputs
(gather, index_select, embedding, select at an item(), scatter), exported by real torch, with torch's answer for each index tried:
in range, at the edges (0, size - 1) and out of it (size, -1, -size, -size - 1, +-2^62).
test_index_bounds.py holds shapec's libraries to them without torch.

    scripts/real-torch.sh --torch 2.14 run test/cpu/gen_index_bounds.py

Writes test/cpu/index_bounds/<program>.json (the ExportedProgram's JSON, out of the .pt2)
and index_bounds/cases.json: per program, each case's inputs and torch's output, or the
type and first line of torch's error."""
import io
import json
import os
import sys
import zipfile

import torch
from torch.export import Dim

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "index_bounds")
BIG = 1 << 62


class Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


def program_json(ep):
    """The ExportedProgram's JSON as torch.export.save writes it into the archive."""
    buf = io.BytesIO()
    torch.export.save(ep, buf)
    with zipfile.ZipFile(buf) as z:
        name = next(n for n in z.namelist() if n.endswith("models/model.json"))
        return json.loads(z.read(name))


def tensor_json(t):
    return {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape), "values": t.flatten().tolist()}


def answer(module, ep, xs):
    """torch's output for inputs xs (ep.module(), which also checks the guards), or its error."""
    try:
        with torch.no_grad():
            y = ep.module()(*xs)
        return {"output": tensor_json(y)}
    except Exception as e:  # torch's words are the point
        return {"error": type(e).__name__, "message": str(e).splitlines()[0]}


def index(shape, value, at=None):
    """An int64 index of zeros with `value` at flat position at (everywhere when None)."""
    t = torch.zeros(shape, dtype=torch.long)
    if at is None:
        t.fill_(value)
    else:
        t.view(-1)[at] = value
    return t


def values(size):
    """The index values to try for a dimension of `size`."""
    return [0, size - 1, size, -1, -size, -size - 1, BIG, -BIG]


def data(*shape):
    return torch.arange(1, 1 + torch.Size(shape).numel(), dtype=torch.float32).reshape(shape)


programs, cases = {}, {}


def export(name, fn, samples, dynamic=None):
    module = Fn(fn)
    ep = torch.export.export(module, tuple(samples), dynamic_shapes=(dynamic,) if dynamic else None)
    programs[name] = program_json(ep)
    return module, ep


def add(name, module, ep, xs, what):
    cases.setdefault(name, []).append({"what": what, "inputs": [tensor_json(x) for x in xs], **answer(module, ep, xs)})


# gather along dim 1 of [5, 2] with a [4, 7] index: smaller than self in dim 0, larger in dim 1
x = data(5, 2)
m, ep = export("gather_4x7", lambda x, i: torch.gather(x, 1, i), [x, index((4, 7), 0)])
add("gather_4x7", m, ep, [x, index((4, 7), 0)], "zeros")
add("gather_4x7", m, ep, [x, torch.arange(28).reshape(4, 7) % 2], "0 and 1")
for v in values(2):
    add("gather_4x7", m, ep, [x, index((4, 7), v, at=13)], f"{v} at [1, 6]")
add("gather_4x7", m, ep, [x, torch.tensor([[0] * 7, [0, 3, 0, 0, 0, 0, -1]] + [[0] * 7] * 2)], "first bad of two")

# gather along dim 0 of [5, 3] with a [2, 2] index, dim given as -2
x = data(5, 3)
m, ep = export("gather_dim0", lambda x, i: torch.gather(x, -2, i), [x, index((2, 2), 0)])
add("gather_dim0", m, ep, [x, torch.tensor([[4, 0], [2, 1]])], "in range")
for v in values(5):
    add("gather_dim0", m, ep, [x, index((2, 2), v, at=3)], f"{v} at [1, 1]")

# gather with dynamic sizes: the index's dim 0 may exceed self's only at run time
x = data(5, 2)
m, ep = export("gather_dynamic", lambda x, i: torch.gather(x, 1, i), [x, index((4, 3), 0)],
               ({0: Dim.AUTO}, {0: Dim.AUTO, 1: Dim.AUTO}))
add("gather_dynamic", m, ep, [x, index((5, 3), 1)], "index [5, 3]")
add("gather_dynamic", m, ep, [data(3, 2), index((1, 9), 1)], "index [1, 9] of self [3, 2]")
add("gather_dynamic", m, ep, [x, index((6, 3), 0)], "index [6, 3] of self [5, 2]")
add("gather_dynamic", m, ep, [data(3, 2), index((2, 4), 2, at=5)], "2 at [1, 1]")

# index_select along dim 0 (torch: "index out of range in self") and dim 1 (its dim-1 kernel's words)
x = data(5, 3)
m, ep = export("index_select_dim0", lambda x, i: torch.index_select(x, 0, i), [x, index((4,), 0)])
add("index_select_dim0", m, ep, [x, torch.tensor([4, 0, 2, 4])], "in range")
for v in values(5):
    add("index_select_dim0", m, ep, [x, index((4,), v, at=2)], f"{v} at [2]")
x = data(3, 5)
m, ep = export("index_select_dim1", lambda x, i: torch.index_select(x, 1, i), [x, index((4,), 0)])
add("index_select_dim1", m, ep, [x, torch.tensor([4, 0, 2, 4])], "in range")
for v in values(5):
    add("index_select_dim1", m, ep, [x, index((4,), v, at=1)], f"{v} at [1]")

# embedding of a [6, 3] table (an input here, so the program has no weights) by [2, 3] indices
w = data(6, 3)
m, ep = export("embedding", lambda w, i: torch.nn.functional.embedding(i, w), [w, index((2, 3), 0)])
add("embedding", m, ep, [w, torch.tensor([[5, 0, 1], [2, 3, 4]])], "in range")
for v in values(6):
    add("embedding", m, ep, [w, index((2, 3), v, at=4)], f"{v} at [1, 1]")

# select at an index from data: x[i.item()] (torch checks it in select's kernel, the program
# has no assert for it)
x = data(4, 3)
m, ep = export("select_item", lambda x, i: x[i.item()] * 2, [x, torch.tensor(1)])
for v in values(4):
    add("select_item", m, ep, [x, torch.tensor(v)], f"{v}")

# scatter_add along dim 0 of [4, 3] from a [2, 3] src (torch checks every index before writing)
x = data(4, 3)
m, ep = export("scatter_add", lambda x, i, s: x.scatter_add(0, i, s), [x, index((2, 3), 0), data(2, 3)])
add("scatter_add", m, ep, [x, torch.tensor([[3, 0, 1], [0, 0, 2]]), data(2, 3)], "in range, repeated")
for v in values(4):
    add("scatter_add", m, ep, [x, index((2, 3), v, at=4), data(2, 3)], f"{v} at [1, 1]")

# scatter along dim 1 with every size dynamic: an index larger than src or than self apart
# from dim is refused at run time with torch's words; scatter_reduce and a value the same
dyn = {0: Dim.AUTO, 1: Dim.AUTO}
m, ep = export("scatter_dynamic", lambda x, i, s: x.scatter(1, i, s) + x.scatter_reduce(1, i, s, "amax", include_self=False)
                                                    + x.scatter(1, i, 0.5),
               [data(4, 5), index((2, 3), 1), data(3, 4)], (dyn, dyn, dyn))
add("scatter_dynamic", m, ep, [data(4, 5), torch.tensor([[4, 0, 4], [1, 1, 3]]), data(3, 4)], "in range")
add("scatter_dynamic", m, ep, [data(4, 5), index((3, 5), 2), data(3, 4)], "index [3, 5] of src [3, 4]")
add("scatter_dynamic", m, ep, [data(2, 5), index((3, 2), 2), data(3, 4)], "index [3, 2] of self [2, 5]")
add("scatter_dynamic", m, ep, [data(4, 5), index((2, 3), 5, at=2), data(3, 4)], "5 at [0, 2]")

os.makedirs(OUT, exist_ok=True)
for name, p in programs.items():
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump(p, f, separators=(",", ":"), sort_keys=True)
with open(os.path.join(OUT, "cases.json"), "w") as f:
    json.dump({"torch": torch.__version__, "cases": cases}, f, indent=1)
    f.write("\n")
for name, cs in cases.items():
    for c in cs:
        print(name, c["what"], c.get("message", "ok"))
print("wrote", len(programs), "programs,", sum(map(len, cases.values())), "cases", file=sys.stderr)
