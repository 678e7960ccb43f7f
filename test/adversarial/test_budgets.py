#!/usr/bin/env python3
"""test_budgets.py - small hostile files against the readers' bounds on memory and time
(issue 58).  Each case builds its file here, a few kilobytes, and runs shapec on it with a
cap on its data memory (RLIMIT_DATA) and a timeout that the readers before the fix passed:

- a .pt2 whose state dict (a zip inside the zip) holds a deflated 80 MiB storage: refused
  with SC0703 naming the member, the limit and SHAPEC_MAX_INPUT_MEMORY, and read when that
  variable raises the limit; with its pickle declaring the 15 floats torch wrote, refused
  before it is inflated, whatever the limit;
- a pickle of 3 million empty dicts (8 KB deflated): refused with SC0703 once its values
  pass the budget, where it took 240 MB;
- a pickle that memoizes one value a million times: read at once (the memo grew one slot at
  a time; under ASan, whose realloc always copies, that took minutes: this case fails the
  old code in the sanitizer pass only);
- a state dict that sets one name 100,000 times: read at once (storage keys compared
  pairwise took 17 s);
- guards_code lines of 34 KB chaining *, // and % (1*1*1...): read at once and in little
  memory (14 to 24 s and 1.4 to 2.5 GB before);
- 200,000 guards_code lines (x.size()[0] != v): analysed in linear time (each new guard
  was compared with every earlier one: about 30 s; 3 s now, 8 s under load);
- observations folders holding rank-2000000000.json and rank-2147483647.json: refused with
  SC1001 naming the file (a 2 GB array, an unchecked calloc and a SIGSEGV before);
- a program of 30,000 nodes in the fewest bytes a node takes (15 MB): read at a peak of at
  most 2.6 times its size above a one-node program's (3.0 times before, its digest taken
  at the end brought the whole file back into memory; 2.2 now).

usage: test_budgets.py SHAPEC SOURCE_DIR"""
import functools
import io
import json
import os
import resource
import struct
import subprocess
import sys
import tempfile
import time
import zipfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/, for tap
import tap  # noqa: E402

checks = tap.Checks()
check = checks.check

LEGACY = "test/real/corpus/2.6/auto_linear/model.pt2"   # torch 2.6's archive: a state dict inside
DYNAMIC = "test/real/corpus/2.14/auto_linear/model.pt2"  # torch 2.14's, x with a symbolic size
MIB = 1 << 20


ASAN = False  # set in main: under AddressSanitizer no memory cap (it maps terabytes of shadow), longer timeouts


def run(shapec, args, mem_mb, timeout, env=None):
    """shapec ARGS with at most mem_mb MB of data memory: (exit status or None on timeout,
    stderr, seconds)."""
    def cap():
        resource.setrlimit(resource.RLIMIT_DATA, (mem_mb * MIB, mem_mb * MIB))
    t0 = time.monotonic()
    timeout = timeout * 3 if ASAN else timeout
    try:
        r = subprocess.run([shapec, *args], capture_output=True, text=True, timeout=timeout,
                           preexec_fn=None if ASAN else cap, env=dict(os.environ, **(env or {})))
        return r.returncode, r.stderr, time.monotonic() - t0
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout} s", time.monotonic() - t0


# ---- zips written by hand: deflate streams of any declared size ---------------------------

@functools.lru_cache(maxsize=None)
def zeros_deflated(n):
    """A raw deflate stream of n zero bytes (n a multiple of 1 MiB) and its CRC: one fully
    flushed block of 1 MiB repeated."""
    co = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = bytes(MIB)
    one = co.compress(block) + co.flush(zlib.Z_FULL_FLUSH)
    crc = 0
    for _ in range(n // MIB):
        crc = zlib.crc32(block, crc)
    return one * (n // MIB) + co.flush(zlib.Z_FINISH), crc


def member(name, data):
    """A deflated member: (name, method, bytes, size, crc)."""
    co = zlib.compressobj(9, zlib.DEFLATED, -15)
    return name, 8, co.compress(data) + co.flush(), len(data), zlib.crc32(data)


def zip_of(members):
    out = io.BytesIO()
    central = []
    for name, method, raw, size, crc in members:
        at = out.tell()
        nb = name.encode()
        out.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0x21, crc, len(raw), size, len(nb), 0) + nb)
        out.write(raw)
        central.append(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, method, 0, 0x21, crc, len(raw), size,
                                   len(nb), 0, 0, 0, 0, 0, at) + nb)
    cd = out.tell()
    for c in central:
        out.write(c)
    out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(central), len(central), out.tell() - cd, cd, 0))
    return out.getvalue()


def legacy_archive(src, state_dict_members):
    """torch 2.6's archive of auto_linear with its state dict replaced by a torch.save zip of
    these members."""
    z = zipfile.ZipFile(os.path.join(src, LEGACY))
    return zip_of([member("serialized_exported_program.json", z.read("serialized_exported_program.json")),
                   member("serialized_state_dict.pt", zip_of(state_dict_members)),
                   member("serialized_constants.pt", z.read("serialized_constants.pt")),
                   member("version", z.read("version"))])


def state_dict(src):
    """The members of the archive's own state dict (archive/data.pkl, archive/data/0, ...)."""
    z = zipfile.ZipFile(os.path.join(src, LEGACY))
    inner = zipfile.ZipFile(io.BytesIO(z.read("serialized_state_dict.pt")))
    return {n: inner.read(n) for n in inner.namelist()}


def with_pickle(src, pkl):
    return legacy_archive(src, [member(n, pkl if n == "archive/data.pkl" else d) for n, d in state_dict(src).items()])


# ---- the cases --------------------------------------------------------------------------------

def storage_of(src, n_bytes, declared):
    """The state dict's members with l.weight's storage (60 bytes: 15 floats) replaced by
    n_bytes of deflated zeros and its pickle declaring `declared` floats for it."""
    members = []
    for name, data in state_dict(src).items():
        if name == "archive/data/0":
            raw, crc = zeros_deflated(n_bytes)
            members.append((name, 8, raw, n_bytes, crc))
        elif name == "archive/data.pkl":  # ('storage', FloatStorage, '0', 'cpu', 15): numel as BININT
            members.append(member(name, data.replace(b"cpuq\x07K\x0f", b"cpuq\x07J" + struct.pack("<i", declared), 1)))
        else:
            members.append(member(name, data))
    return members


def nested_archive(shapec, src, tmp):
    path = os.path.join(tmp, "nested.pt2")
    with open(path, "wb") as f:
        f.write(legacy_archive(src, storage_of(src, 80 * MIB, 20 * MIB)))  # declared as it is: 80 MiB of floats
    size = os.path.getsize(path)
    rc, err, s = run(shapec, ["export", path, "--no-codegen", "-q"], 100, 20)
    check(rc == 1 and "SC0703" in err and "archive/data/0" in err and "80 MiB" in err and "SHAPEC_MAX_INPUT_MEMORY" in err,
          f"a {size}-byte .pt2 whose state dict inflates to 80 MiB is refused, naming the member and the limit "
          f"(exit {rc}, {s:.1f} s): {err.strip()[:300]}")
    rc, err, s = run(shapec, ["export", path, "--no-codegen", "-q"], 400, 20, {"SHAPEC_MAX_INPUT_MEMORY": "256M"})
    check(rc == 0, f"... and read with SHAPEC_MAX_INPUT_MEMORY=256M (exit {rc}, {s:.1f} s): {err.strip()[:300]}")
    with open(path, "wb") as f:
        f.write(legacy_archive(src, storage_of(src, 80 * MIB, 15)))  # declared as torch wrote it: 15 floats
    rc, err, s = run(shapec, ["export", path, "--no-codegen", "-q"], 100, 20, {"SHAPEC_MAX_INPUT_MEMORY": "256M"})
    check(rc == 1 and "SC0703" in err and "archive/data/0" in err and "60 bytes" in err,
          f"a storage whose member holds 80 MiB where its pickle declares 60 bytes is refused before it is inflated "
          f"(exit {rc}, {s:.1f} s): {err.strip()[:300]}")


def pickle_values(shapec, src, tmp):
    path = os.path.join(tmp, "dicts.pt2")
    with open(path, "wb") as f:
        f.write(with_pickle(src, b"\x80\x02" + b"}0" * 3_000_000 + b"}."))  # EMPTY_DICT, POP, ...
    rc, err, s = run(shapec, ["export", path, "--no-codegen", "-q"], 200, 20)
    check(rc == 1 and "SC0703" in err and "data.pkl@" in err and "SHAPEC_MAX_INPUT_MEMORY" in err,
          f"a pickle of 3 million dicts ({os.path.getsize(path)} bytes deflated) stops at the budget "
          f"(exit {rc}, {s:.1f} s): {err.strip()[:300]}")


def pickle_memo(shapec, src, tmp):
    path = os.path.join(tmp, "memo.pt2")
    pkl = struct.pack("<BB", 0x80, 4) + b"N" + b"\x94" * 1_000_000 + b"0" + state_dict(src)["archive/data.pkl"][2:]
    with open(path, "wb") as f:
        f.write(with_pickle(src, pkl))
    rc, err, s = run(shapec, ["export", path, "--no-codegen", "-q"], 200, 10)
    check(rc == 0, f"a pickle that memoizes a million times is read at once (exit {rc}, {s:.1f} s): {err.strip()[:300]}")


def pickle_setitems(shapec, src, tmp):
    path = os.path.join(tmp, "setitems.pt2")
    pkl = state_dict(src)["archive/data.pkl"][:-1]  # the state dict on the stack, before STOP
    pkl += (b"X" + struct.pack("<I", 8) + b"l.weight" + b"h\x11s") * 100_000  # l.weight = memo[17], again and again
    with open(path, "wb") as f:
        f.write(with_pickle(src, pkl + b"."))
    rc, err, s = run(shapec, ["export", path, "--no-codegen", "-q"], 200, 8)
    check(rc == 0, f"a state dict setting one name 100,000 times is read at once (exit {rc}, {s:.1f} s): "
                   f"{err.strip()[:300]}")


def guard_chains(shapec, src, tmp):
    z = zipfile.ZipFile(os.path.join(src, DYNAMIC))
    program = json.loads(z.read("model/models/model.json"))
    for op in ("*", "//", "%"):
        program["guards_code"] = ["L['x'].size()[0] >= " + op.join(["1"] * (34000 // (1 + len(op))))]
        path = os.path.join(tmp, "guards.json")
        with open(path, "w") as f:
            json.dump(program, f)
        rc, err, s = run(shapec, ["export", path, "--no-codegen", "-q"], 200, 8)
        check(rc == 0, f"a 34 KB guard 1{op}1{op}1... is read at once in little memory (exit {rc}, {s:.1f} s): "
                       f"{err.strip()[:300]}")


def guard_lines(shapec, src, tmp):
    z = zipfile.ZipFile(os.path.join(src, DYNAMIC))
    program = json.loads(z.read("model/models/model.json"))
    program["guards_code"] = [f"L['x'].size()[0] != {v}" for v in range(1000, 201000)]
    path = os.path.join(tmp, "guard-lines.json")
    with open(path, "w") as f:
        json.dump(program, f)
    rc, err, s = run(shapec, ["export", path, "--no-codegen", "-q"], 800, 25)
    check(rc == 0, f"200,000 guards_code lines are analysed in linear time (exit {rc}, {s:.1f} s): {err.strip()[:300]}")


def observation_ranks(shapec, src, tmp):
    model = os.path.join(src, "examples/tutorial/model.json")
    for rank in ("2000000000", "2147483647"):
        obs = os.path.join(tmp, "obs-" + rank)
        os.makedirs(obs)
        call = {"calls": [{"w": [6, 5], "x": [4], "y": [8, 4], "z": [32]}]}
        for r in ("0", rank):
            with open(os.path.join(obs, f"rank-{r}.json"), "w") as f:
                json.dump(call, f)
        rc, err, s = run(shapec, ["spec", "infer", obs, "--model", model], 200, 10)
        check(rc == 1 and "SC1001" in err and f"rank-{rank}.json" in err,
              f"an observations folder holding rank-{rank}.json is refused, naming it (exit {rc}): {err.strip()[:300]}")


def compact_program(n):
    """A program of n nodes as tools/shapec_tools writes them (no metadata, the fewest bytes
    a node takes): x [s0, 16] through relu and add(prev, x) in turn."""
    meta = json.dumps({"dtype": 7, "sizes": [{"as_expr": {"expr_str": "s0", "hint": {"as_int": 4}}}, {"as_int": 16}],
                       "requires_grad": False, "device": {"type": "cpu", "index": None},
                       "strides": [{"as_int": 16}, {"as_int": 1}], "storage_offset": {"as_int": 0}, "layout": 7})
    relu = ('{"target": "torch.ops.aten.relu.default", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "%s"}}, '
            '"kind": 1}], "outputs": [{"as_tensor": {"name": "%s"}}], "metadata": {}, "name": "%s"}')
    add = ('{"target": "torch.ops.aten.add.Tensor", "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "%s"}}, '
           '"kind": 1}, {"name": "other", "arg": {"as_tensor": {"name": "x"}}, "kind": 1}], "outputs": [{"as_tensor": '
           '{"name": "%s"}}], "metadata": {}, "name": "%s"}')
    nodes = [(add if i % 2 else relu) % ("v%d" % (i - 1) if i else "x", "v%d" % i, "v%d" % i) for i in range(n)]
    values = ['"x": ' + meta] + ['"v%d": %s' % (i, meta) for i in range(n)]
    out = '{"as_tensor": {"name": "v%d"}}' % (n - 1)
    return ('{"schema_version": {"major": 8, "minor": 2}, "graph_module": {"graph": {"inputs": [{"as_tensor": {"name": "x"}}], '
            '"nodes": [' + ", ".join(nodes) + '], "tensor_values": {' + ", ".join(values) + '}, "sym_int_values": {}, '
            '"sym_bool_values": {}, "outputs": [' + out + ']}, "signature": {"input_specs": [{"user_input": '
            '{"arg": {"as_tensor": {"name": "x"}}}}], "output_specs": [{"user_output": {"arg": ' + out + '}}]}}, '
            '"range_constraints": {"s0": {"min_val": 2, "max_val": null}}}')


def peak_rss(shapec, args):
    """The peak resident memory of shapec ARGS, in bytes (mapped file pages included), and its
    exit status: measured from a fresh, small Python, since a child's peak counts what it
    held before exec, a fork of this process and its strings."""
    probe = ("import os, subprocess, sys; p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, "
             "stderr=subprocess.DEVNULL); _, status, usage = os.wait4(p.pid, 0); print(usage.ru_maxrss * 1024, status)")
    out = subprocess.run([sys.executable, "-c", probe, shapec, *args], capture_output=True, text=True).stdout.split()
    return int(out[0]), int(out[1])


def program_scale(shapec, src, tmp):
    if ASAN:  # red zones and quarantine: memory says nothing there
        print("skip - memory per node: shapec is built with AddressSanitizer")
        return
    small, big = os.path.join(tmp, "small.json"), os.path.join(tmp, "big.json")
    with open(small, "w") as f:
        f.write(compact_program(1))
    with open(big, "w") as f:
        f.write(compact_program(30_000))
    base, _ = peak_rss(shapec, ["export", small, "--no-codegen", "-q", "-o", os.path.join(tmp, "scale")])
    peak, status = peak_rss(shapec, ["export", big, "--no-codegen", "-q", "-o", os.path.join(tmp, "scale")])
    ratio = (peak - base) / os.path.getsize(big)
    check(status == 0 and ratio <= 2.6, f"a 30,000-node program is read in at most 2.6 times its size "
                                        f"({ratio:.2f} times its {os.path.getsize(big) >> 20} MiB, exit status {status})")


def main(argv):
    if len(argv) != 3:
        print(__doc__.splitlines()[-1])
        return 2
    shapec, src = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    global ASAN
    ASAN = "asan" in subprocess.run(["ldd", shapec], capture_output=True, text=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)  # exports without -o write shapec-out/ here
        for case in (nested_archive, pickle_values, pickle_memo, pickle_setitems, guard_chains, guard_lines,
                     observation_ranks, program_scale):
            case(shapec, src, tmp)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
