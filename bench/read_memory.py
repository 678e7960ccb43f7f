#!/usr/bin/env python3
"""read_memory.py - the memory and time `shapec export --no-codegen` takes to read a big
program: a generated chain of N relu nodes (every node with its tensor meta, as torch
writes them), for several N, with /usr/bin/time's peak RSS (issue 13: reading at most about
3 times the file size, time linear in it).

usage: bench/read_memory.py SHAPEC [N ...]     (default N: 10000 100000 1000000)
Pin it (taskset -c 0) and say which CPU (lscpu) when you quote it."""
import json
import os
import re
import subprocess
import sys
import tempfile
import time


def write_chain(path, n):
    """x -> relu -> relu ... (n nodes), shape [s0, 8] with a dynamic batch."""
    meta = '{"dtype": 7, "sizes": [{"as_expr": {"expr_str": "s0", "hint": {"as_int": 4}}}, {"as_int": 8}], ' \
           '"requires_grad": false, "device": {"type": "cpu"}, "strides": [{"as_int": 8}, {"as_int": 1}], ' \
           '"storage_offset": {"as_int": 0}, "layout": 7}'
    with open(path, "w") as f:
        f.write('{"schema_version": {"major": 8, "minor": 13}, "graph_module": {"graph": {"inputs": '
                '[{"as_tensor": {"name": "x"}}], "outputs": [{"as_tensor": {"name": "r%d"}}], "nodes": [' % (n - 1))
        for i in range(n):
            src = "x" if i == 0 else f"r{i - 1}"
            f.write(('' if i == 0 else ', ') + '{"target": "torch.ops.aten.relu.default", "inputs": [{"name": "self", '
                    '"arg": {"as_tensor": {"name": "%s"}}}], "outputs": [{"as_tensor": {"name": "r%d"}}], '
                    '"metadata": {}}' % (src, i))
        f.write('], "tensor_values": {"x": ' + meta)
        for i in range(n):
            f.write(', "r%d": %s' % (i, meta))
        f.write('}, "sym_int_values": {}, "sym_bool_values": {}}, "signature": {"input_specs": [{"user_input": '
                '{"arg": {"as_tensor": {"name": "x"}}}}], "output_specs": [{"user_output": {"arg": {"as_tensor": '
                '{"name": "r%d"}}}}]}}, "range_constraints": {"s0": {"min_val": 2, "max_val": 1024}}}' % (n - 1))


def main(argv):
    shapec = argv[1]
    sizes = [int(a) for a in argv[2:]] or [10000, 100000, 1000000]
    print(f"{'nodes':>9} {'file MB':>8} {'peak RSS MB':>12} {'RSS/file':>9} {'seconds':>8} {'us/node':>8}")
    with tempfile.TemporaryDirectory(prefix="shapec-readmem-") as tmp:
        for n in sizes:
            path = os.path.join(tmp, f"chain{n}.json")
            write_chain(path, n)
            mb = os.path.getsize(path) / 2 ** 20
            t0 = time.perf_counter()
            r = subprocess.run(["/usr/bin/time", "-v", shapec, "export", path, "--no-codegen", "-q", "-o",
                                os.path.join(tmp, "out")], capture_output=True, text=True)
            secs = time.perf_counter() - t0
            rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr).group(1)) / 1024
            status = "" if r.returncode == 0 else f"  (exit {r.returncode}: {r.stderr.splitlines()[0][:80]})"
            print(f"{n:>9} {mb:>8.1f} {rss:>12.1f} {rss / mb:>9.2f} {secs:>8.2f} {secs / n * 1e6:>8.2f}{status}")
            os.remove(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
