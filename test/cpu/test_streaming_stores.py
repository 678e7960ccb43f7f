#!/usr/bin/python3
"""Large elementwise outputs streamed past the caches: the streaming variant of a fused
loop (backends/llvm/cg_elementwise.c) and the pass that makes its stores non-temporal
(backends/cpu/stream_stores.c).

The model is the benchmarks' chain gelu(x * w + b) + x (tools/shapec_tools/zoo.py).
- Code: built for an AVX-512 CPU (--cpu skylake-avx512) with a dynamic batch, the library
  has 64-byte streaming stores (vmovntps on zmm registers), prefetches and a store fence;
  built for an AVX2 CPU (haswell) it has the streaming variant's segments and prefetches
  with ordinary stores, so no streaming store and no fence; with a static shape of 1 MB no
  streaming code, and with a static shape of 34 MB the streaming loop only.
- Numbers, on this machine's CPU: a call whose output is 32 MB or more (the streaming
  variant, where the CPU has AVX-512) gives the same bits, row for row, as calls on 100
  rows at a time (the cached variant), and agrees with PyTorch eager.  Row lengths that
  reach every part of a streamed row (a head up to the first line boundary in masked
  vectors, then four segments side by side in chunks of 64 floats, the last segments
  ending early): 4100 floats (rows start at each 16-byte offset within a cache line, so
  the head varies), 4096 (four whole segments where a row starts on a line), 1000 (the
  fourth segment partial) and 300 (the third partial, the fourth empty).  The library
  built for AVX2 (ordinary stores) gives the same bits one call and 100 rows at a time on
  [2100, 4100] too, and so does the one built for AMD's Zen 4 (--cpu znver4, where a row
  streams as one segment) on [2100, 4100] and [8400, 1000], on a CPU with AVX-512.
- Other element sizes: float64 (streamed, 8-byte elements) and bool outputs of one model,
  exactly as numpy computes them.
Exit 77 without PyTorch.

usage: test_streaming_stores.py SHAPEC SOURCE_DIR"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/, for tap
import tap  # noqa: E402

tap.require_torch(" (apt-get install python3-torch)")
import numpy as np  # noqa: E402
import torch  # noqa: E402

shapec, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "tools"))
from shapec_tools.convert import convert  # noqa: E402
from shapec_tools.model_library import ModelLibrary  # noqa: E402
from shapec_tools.zoo import Chain  # noqa: E402

checks = tap.Checks()
check = checks.check


def export(model_json, out, *args):
    r = subprocess.run([shapec, "export", model_json, "-o", out, "-q", *args], capture_output=True, text=True)
    check(r.returncode == 0, f"export {os.path.basename(out)} {' '.join(args)}" + (f": {r.stderr[-400:]}" if r.returncode else ""))
    return os.path.join(out, "model.so")


def disassembly(lib):
    return subprocess.run(["objdump", "-d", "--no-show-raw-insn", lib], capture_output=True, text=True, check=True).stdout


def streaming_code(text):
    """(64-byte streaming stores, prefetches, store fences) in a disassembly."""
    return (len(re.findall(r"vmovntps\s+%zmm", text)), len(re.findall(r"prefetcht[012]", text)),
            len(re.findall(r"\bsfence\b", text)))


def chain(tmp, n, example_rows):
    torch.manual_seed(n)
    model = Chain(n).eval()
    path = convert(model, [torch.randn(example_rows, n)], os.path.join(tmp, f"chain{n}_{example_rows}"),
                   input_names=["x"])
    return model, path


def write_spec(tmp):
    spec = os.path.join(tmp, "spec.json")
    with open(spec, "w") as fp:
        fp.write('{"dynamic_shapes": {"x": ["_DimHint.AUTO", null]}}')
    return spec


def code_checks(tmp):
    spec = write_spec(tmp)
    _, dynamic = chain(tmp, 4100, 64)
    nt, pf, fence = streaming_code(disassembly(export(dynamic, os.path.join(tmp, "v4"), "--dynamic", spec,
                                                      "--cpu", "skylake-avx512")))
    check(nt >= 1 and pf >= 1 and fence >= 1,
          f"AVX-512, dynamic batch: streaming stores ({nt}), prefetches ({pf}) and a fence ({fence})")
    nt, pf, fence = streaming_code(disassembly(export(dynamic, os.path.join(tmp, "v3"), "--dynamic", spec,
                                                      "--cpu", "haswell")))
    check(nt == 0 and pf >= 1 and fence == 0,
          f"AVX2: the segments' prefetches ({pf}), no streaming store ({nt}) and no fence ({fence})")
    nt, pf, fence = streaming_code(disassembly(export(dynamic, os.path.join(tmp, "small"), "--cpu", "skylake-avx512")))
    check(nt == 0 and pf == 0, f"AVX-512, static 1 MB output: no streaming code ({nt} stores, {pf} prefetches)")
    _, big = chain(tmp, 4100, 2100)
    text = disassembly(export(big, os.path.join(tmp, "big"), "--cpu", "skylake-avx512"))
    nt, pf, fence = streaming_code(text)
    loops = len(re.findall(r"^[0-9a-f]+ <sc_loop_\d+>:", text, re.M))
    check(nt >= 1 and fence >= 1 and loops == 1,
          f"AVX-512, static 34 MB output: one loop ({loops}), and it streams ({nt} stores, {fence} fences)")


def numbers(tmp):
    spec = write_spec(tmp)
    cases = [(4100, 2100, ()), (4096, 2048, ()), (1000, 8400, ()), (300, 30000, ())]
    flags = open("/proc/cpuinfo").read()
    if " avx2" in flags:
        cases.append((4100, 2100, ("--cpu", "haswell")))
    if " avx512f" in flags:  # tuned for AMD's Zen 4: one segment a row (stream_segments)
        cases += [(4100, 2100, ("--cpu", "znver4")), (1000, 8400, ("--cpu", "znver4"))]
    for n, rows, cpu in cases:
        model, path = chain(tmp, n, 64)
        lib = ModelLibrary(export(path, os.path.join(tmp, f"host{n}{'_'.join(cpu)}"), "--dynamic", spec, *cpu))
        x = np.random.default_rng(n).standard_normal((rows, n), dtype=np.float32)
        label = f"[{rows}, {n}]" + (f" {' '.join(cpu)}" if cpu else "")
        check(x.nbytes >= 32 << 20, f"{label}: the output ({x.nbytes >> 20} MB) reaches the streaming size")
        run, (whole,) = lib.prepare([x])
        run()
        parts = []
        for r in range(0, rows, 100):
            run_part, (part,) = lib.prepare([np.ascontiguousarray(x[r:r + 100])])
            run_part()
            parts.append(part)
        pieces = np.concatenate(parts)
        same = np.array_equal(whole.view(np.uint32), pieces.view(np.uint32))
        check(same, f"{label}: one call gives the bits of 100-row calls"
              + ("" if same else f" (first difference at {np.argwhere(whole != pieces)[:1].tolist()})"))
        with torch.no_grad():
            want = model(torch.from_numpy(x)).numpy()
        err = float(np.max(np.abs(whole - want)))
        check(err <= 1e-5 * max(1.0, float(np.max(np.abs(want)))), f"{label}: agrees with PyTorch eager (max error {err:.2e})")


class Widen(torch.nn.Module):
    """float32 in, float64 and bool out: 8- and 1-byte elements (the head before a row's
    first line boundary counts elements of the output's size)."""

    def forward(self, x):
        return x.double() * 2.0 + 1.0, x > 0.5


def other_dtypes(tmp):
    """Through `shapec run` (tools' ModelLibrary allocates float32 outputs only)."""
    path = convert(Widen().eval(), [torch.randn(64, 2050)], os.path.join(tmp, "widen"), input_names=["x"])
    lib = export(path, os.path.join(tmp, "widen_out"), "--dynamic", write_spec(tmp))
    x = np.random.default_rng(1).standard_normal((2050, 2050), dtype=np.float32)
    np.save(os.path.join(tmp, "x.npy"), x)
    out = os.path.join(tmp, "widen_run")
    r = subprocess.run([shapec, "run", lib, "-i", f"x={tmp}/x.npy", "--out", out], capture_output=True, text=True)
    check(r.returncode == 0, "shapec run of the float64 and bool outputs" + (f": {r.stderr[-400:]}" if r.returncode else ""))
    if r.returncode:
        return
    wide, mask = np.load(os.path.join(out, "output_0.npy")), np.load(os.path.join(out, "output_1.npy"))
    check(wide.dtype == np.float64 and wide.nbytes >= 32 << 20, f"a float64 output of {wide.nbytes >> 20} MB")
    check(np.array_equal(wide, x.astype(np.float64) * 2.0 + 1.0), "float64 output: x * 2 + 1, exactly")
    check(mask.dtype == np.bool_ and np.array_equal(mask, x > 0.5), "bool output: x > 0.5")


with tempfile.TemporaryDirectory() as tmp:
    code_checks(tmp)
    numbers(tmp)
    other_dtypes(tmp)

sys.exit(checks.finish(f"{len(checks.failures)} failed" if checks.failures else "all passed"))
