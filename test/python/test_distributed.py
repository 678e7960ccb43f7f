#!/usr/bin/python3
"""test_distributed.py - four ranks of a real torch.distributed job (gloo, init_method
file://, Debian's torch) agree on one spec over their own process group and load
byte-identical libraries built once (shapec.distributed.export_agreed, issue 64).

Each rank sees the tutorial model at its own batch sizes (rank r: w [6 + r, 5]); only rank
0 has the shapec command ($SHAPEC), so a rank that exported by itself would fail.  Checked
on every rank: the library's SHA-256 is the same on all (gathered), the spec made w's
first dim dynamic and kept the rest static (as `shapec spec infer` merges rank files),
the library runs this rank's inputs, and with shared_fs only the path travels.  Then a
spec the model refuses raises ExportError on every rank.

usage: test_distributed.py SHAPEC SOURCE_DIR"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile

WORLD = 4


def worker(rank, init_file, work, src):
    import numpy as np
    import torch.distributed as dist

    sys.path.insert(0, os.path.join(src, "python"))
    import shapec
    import shapec.distributed

    dist.init_process_group("gloo", init_method="file://" + init_file, rank=rank, world_size=WORLD)
    tut = os.path.join(src, "examples", "tutorial")
    calls = [{"w": [6 + rank, 5], "x": [4], "y": [8, 4], "z": [32]}]
    m = shapec.distributed.export_agreed(os.path.join(tut, "model.json"), calls, os.path.join(work, f"rank{rank}"))
    digest = hashlib.sha256(open(os.path.join(work, f"rank{rank}", "model.so"), "rb").read()).hexdigest()
    digests = [None] * WORLD
    dist.all_gather_object(digests, digest)
    spec = json.load(open(os.path.join(work, f"rank{rank}", "spec.json")))
    x = np.random.default_rng(rank).standard_normal
    out = m(x((6 + rank, 5)).astype(np.float32), x(4).astype(np.float32), x((8, 4)).astype(np.float32),
            x(32).astype(np.float32))
    shared = shapec.distributed.export_agreed(os.path.join(tut, "model.json"), calls, os.path.join(work, "shared"),
                                              shared_fs=True)
    refused = None
    try:
        shapec.distributed.export_agreed(os.path.join(tut, "model.json"), calls, os.path.join(work, f"bad{rank}"),
                                         options=["--cpu", "no-such-cpu"])
    except shapec.ExportError as e:
        refused = e.code
    dist.barrier()
    dist.destroy_process_group()
    return {"rank": rank, "same_library": len(set(digests)) == 1, "spec": spec["dynamic_shapes"],
            "ran": out[0].shape == (6 + rank, 3), "shared": shared.path == os.path.join(work, "shared", "model.so"),
            "refused": refused, "own_folder": os.path.exists(os.path.join(work, f"rank{rank}", "model.so"))}


def main():
    if sys.argv[1] == "worker":
        rank, init_file, work, src = int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
        print(json.dumps(worker(rank, init_file, work, src)))
        return 0
    shapec_bin, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    sys.path.insert(0, os.path.join(src, "test"))
    import tap

    t = tap.Checks()
    with tempfile.TemporaryDirectory() as work:
        init_file = os.path.join(work, "init")
        procs = []
        for rank in range(WORLD):
            env = {k: v for k, v in os.environ.items() if k not in ("SHAPEC",)}
            env["PATH"] = "/usr/bin:/bin"  # no shapec on PATH: only rank 0 can export
            if rank == 0:
                env["SHAPEC"] = shapec_bin
            env["OMP_NUM_THREADS"] = "1"
            procs.append(subprocess.Popen([sys.executable, os.path.abspath(__file__), "worker", str(rank), init_file, work,
                                           src], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env))
        results = []
        for p in procs:
            try:
                out, err = p.communicate(timeout=240)
            except subprocess.TimeoutExpired:
                p.kill()
                out, err = p.communicate()
            lines = [line for line in out.splitlines() if line.startswith("{")]
            results.append(json.loads(lines[-1]) if p.returncode == 0 and lines else {"error": err[-800:]})
        t.check(all("error" not in r for r in results), "four gloo ranks ran: " + "; ".join(r.get("error", "ok")[-300:]
                                                                                       for r in results))
        if all("error" not in r for r in results):
            t.check(all(r["same_library"] and r["own_folder"] for r in results),
                    "every rank loads byte-identical libraries, written into its own folder")
            spec = results[0]["spec"]
            w = spec["w"] if isinstance(spec, dict) else spec[0]
            t.check(all(r["spec"] == spec for r in results) and w[0] == "_DimHint.AUTO" and w[1] == 5,
                    f"one spec on every rank: w's first dim dynamic (ranks saw 6 to 9), the rest static ({spec})")
            t.check(all(r["ran"] for r in results), "each rank's library runs its own inputs")
            t.check(all(r["shared"] for r in results), "shared_fs: every rank loads the first rank's files by path")
            t.check(all(r["refused"] == 2 for r in results), "an export the first rank's shapec refuses raises "
                    f"ExportError on every rank ({[r['refused'] for r in results]})")
    return t.finish()


if __name__ == "__main__":
    sys.exit(main())
