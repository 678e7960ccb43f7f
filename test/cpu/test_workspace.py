#!/usr/bin/python3
"""The planned workspace (backends/llvm/cg_workspace.c, backends/cpu/runtime/workspace.c).

For each model: the tutorial, the attention block that real torch 2.14 exported
(test/cpu/products/encoder), and resnet18 and mobilenet_v2 from the zoo (converted by the
PyTorch installed here):
  - `export -v` reports the plan: fewer regions than buffers (the tutorial's three are all
    alive at once), and at the example shapes a
    workspace no larger than the buffers' sum, and no smaller than the most alive at once;
  - steady_allocs (test/cpu/steady_allocs.c), on 1 and on 2 threads: in ten warm calls at
    the first shapes the model library makes no heap allocation, and they give the first
    call's bits; calls at smaller shapes, and at the first shapes again, make none either.
    Convolutions run in the built-in kernels for that (SHAPEC_ONEDNN=0), and through
    oneDNN (SHAPEC_ONEDNN=always), whose plans are made per shape: there the smaller
    shapes may allocate, the first shapes again may not.  (OpenBLAS's small-matrix kernels
    and oneDNN's execution allocate on every call; steady_allocs tells theirs apart.)
The zoo models are skipped (not failed) without PyTorch, and the allocation counts in a
sanitized build (steady_allocs exits 77 there).

usage: test_workspace.py SHAPEC STEADY_ALLOCS SOURCE_DIR"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/, for tap
import tap  # noqa: E402

shapec, steady, src = sys.argv[1], sys.argv[2], sys.argv[3]
checks = tap.Checks()
check = checks.check


PLAN = re.compile(r"workspace: (\d+) buffers in (\d+) regions, ([\d.]+) MiB at the example shapes "
                  r"\(at most ([\d.]+) MiB live at once\)")


def export(name, args, tmp, shared=True):
    out = os.path.join(tmp, name)
    r = subprocess.run([shapec, "export", *args, "-o", out, "-v"], capture_output=True, text=True)
    if r.returncode != 0:
        check(False, f"{name}: exports ({r.stderr.strip()[-400:]})")
        return None
    m = PLAN.search(r.stderr)
    check(m is not None, f"{name}: export -v reports the workspace plan" + ("" if m else f"\n{r.stderr[-600:]}"))
    if m:
        buffers, regions, total, peak = int(m[1]), int(m[2]), float(m[3]), float(m[4])
        if shared:
            check(0 < regions < buffers, f"{name}: {buffers} buffers share {regions} regions")
        else:
            check(0 < regions <= buffers, f"{name}: {buffers} buffers in {regions} regions")
        check(peak <= total, f"{name}: the workspace ({total} MiB) holds the live peak ({peak} MiB)")
    return os.path.join(out, "model.so")


def steady_state(name, lib, shapes, convolutions=False):
    """Convolutions in the built-in kernels, and (convolutions) through oneDNN, whose plans
    are made per shape: there only the first shapes again must allocate nothing."""
    modes = [("0", [])] + ([("always", ["--new-shapes-plan"])] if convolutions else [])
    for onednn, flags in modes:
        for threads in (1, 2):
            env = dict(os.environ, SHAPEC_ONEDNN=onednn)
            r = subprocess.run([steady, *flags, lib, str(threads), *shapes], capture_output=True, text=True, env=env)
            if r.returncode == 77:  # a sanitized build: its allocator is not to be replaced
                print(f"# {name}: steady_allocs skipped: {r.stdout.strip()}")
                return
            check(r.returncode == 0, f"{name}, SHAPEC_ONEDNN={onednn}, {threads} thread(s): warm calls allocate "
                                     f"nothing and repeat their results\n{r.stdout}{r.stderr}")


def zoo_model(name, tmp):
    """The zoo model converted to a program file by the PyTorch here, or None without it."""
    try:
        sys.path.insert(0, os.path.join(src, "tools"))
        from shapec_tools import zoo
    except ImportError:
        print(f"# {name}: skipped, PyTorch is not installed")
        return None
    return zoo.program_files(name, tmp)

with tempfile.TemporaryDirectory() as tmp:
    tutorial = os.path.join(src, "examples", "tutorial")
    lib = export("tutorial", [os.path.join(tutorial, "model.json"), "--dynamic", os.path.join(tutorial, "spec.json")], tmp,
                 shared=False)  # its three buffers are all alive at the end
    if lib:
        steady_state("tutorial", lib, ["6x5,4,8x4,32", "2x5,2,2x2,4", "1x5,1,3x1,3"])
    lib = export("encoder", [os.path.join(src, "test", "cpu", "products", "encoder", "model.pt2")], tmp)
    if lib:
        steady_state("encoder", lib, ["2x16x32", "1x3x32", "2x7x32"])
    for name, shapes in (("resnet18", ["2x3x64x64", "1x3x32x48", "2x3x57x40"]),
                         ("mobilenet_v2", ["2x3x64x64", "1x3x32x32", "2x3x45x60"])):
        args = zoo_model(name, tmp)
        if args:
            lib = export(name, args, tmp)
            if lib:
                steady_state(name, lib, shapes, convolutions=True)

sys.exit(checks.finish())
