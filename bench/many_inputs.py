#!/usr/bin/python3
"""many_inputs.py - export time against the number of inputs: a program of N float32 [4]
inputs summed in a chain (N - 1 aten.add.Tensor nodes), exported by shapec with -v, whose
phase timings it prints with the whole export's wall time and peak memory
(docs/benchmarks.md, "Many inputs").  chain_program() builds the program; test/cpu/
test_many_inputs.py builds its own variants with it.

usage: bench/many_inputs.py SHAPEC [N ...]   (default 1000 5000 20000 100000)"""
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PHASES = ["read the model", "read the spec", "lowering to LLVM IR", "entry functions apart",
          "LLVM code generation of the entry functions (level none)", "link (ld.lld)"]


def tensor_meta(sizes):
    """A float32 tensor's meta: its sizes and compact strides."""
    strides = [1] * len(sizes)
    for k in range(len(sizes) - 2, -1, -1):
        strides[k] = strides[k + 1] * sizes[k + 1]
    return {"dtype": 7, "sizes": [{"as_int": s} for s in sizes], "requires_grad": False,
            "device": {"type": "cpu", "index": None}, "layout": 7, "storage_offset": {"as_int": 0},
            "strides": [{"as_int": s} for s in strides]}


def chain_program(n, shape_of=lambda i: [4]):
    """The ExportedProgram (JSON, as torch.export writes it; the tutorial's as a template) of
    x0 + x1 + ... + x{n-1}, input i of shape shape_of(i) (shapes that broadcast to one)."""
    with open(os.path.join(SRC, "examples", "tutorial", "model.json")) as f:
        d = json.load(f)
    g = d["graph_module"]
    values, specs, inputs, nodes = {}, [], [], []
    for i in range(n):
        values[f"x{i}"] = tensor_meta(shape_of(i))
        specs.append({"user_input": {"arg": {"as_tensor": {"name": f"x{i}"}}}})
        inputs.append({"as_tensor": {"name": f"x{i}"}})
    prev, shape = "x0", shape_of(0)
    for i in range(1, n):
        other = shape_of(i)
        shape = other if len(other) > len(shape) else shape
        out = f"add_{i}"
        values[out] = tensor_meta(shape)
        nodes.append({"name": out, "target": "torch.ops.aten.add.Tensor", "metadata": {},
                      "inputs": [{"name": "self", "arg": {"as_tensor": {"name": prev}}, "kind": 1},
                                 {"name": "other", "arg": {"as_tensor": {"name": f"x{i}"}}, "kind": 1}],
                      "outputs": [{"as_tensor": {"name": out}}]})
        prev = out
    g["graph"].update(inputs=inputs, nodes=nodes, tensor_values=values, outputs=[{"as_tensor": {"name": prev}}])
    g["signature"] = {"input_specs": specs, "output_specs": [{"user_output": {"arg": {"as_tensor": {"name": prev}}}}]}
    g["module_call_graph"] = []
    d["range_constraints"], d["guards_code"] = {}, []
    return d


def phases(stderr):
    """{phase: seconds} from export -v's lines ("shapec: [  0.1 s] NAME: 0.02 s")."""
    out = {}
    for line in stderr.splitlines():
        if line.startswith("shapec: ["):
            name, secs = line.split("] ", 1)[1].rsplit(": ", 1)
            out[name] = float(secs.split()[0])
    return out


def main():
    shapec = os.path.abspath(sys.argv[1])
    sizes = [int(a) for a in sys.argv[2:]] or [1000, 5000, 20000, 100000]
    print("| inputs | " + " | ".join(PHASES) + " | export s | CPU s | peak MiB |")
    print("|---" * (len(PHASES) + 4) + "|")
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "model.json")
            with open(path, "w") as f:
                f.write(json.dumps(chain_program(n)))  # dumps: the C encoder
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            r = subprocess.run([shapec, "export", path, "-o", os.path.join(tmp, "out"), "-q", "-v"], capture_output=True,
                               text=True, check=True)
            total = time.perf_counter() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime  # the wall time less the waits
            peak = after.ru_maxrss / 1024  # the largest child so far: sizes go up
            p = phases(r.stderr)
            cells = " | ".join(f"{p.get(name, 0.0):.2f}" for name in PHASES)
            print(f"| {n:,} | {cells} | {total:.1f} | {cpu:.1f} | {peak:.0f} |", flush=True)


if __name__ == "__main__":
    main()
