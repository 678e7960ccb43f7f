#!/usr/bin/python3
"""Runs a GPU bundle (test/cuda/bundle.py) on this machine's GPU, with nothing of shapec
but its Python package: every library is loaded with shapec.load, every run's inputs go
to the GPU as torch tensors, and the outputs must match the ones ATen computed where the
bundle was made, by the numerics tests' rule (NaN where ATen has NaN, equal infinities,
finite values within 1e-4 of max(1, ATen's largest magnitude), integers and bools exact).

The first library of each group is also called from 4 threads at once, on a side
stream, with a wrong shape and with a CPU input mixed in.

A case whose CUDA error leaves the context unusable would fail every later case, so the
cases run in a child process that is started again after such a case.

--emulated: the bundle was exported with --cuda-emulate (no GPU): NumPy arrays stand for
device memory, and torch is not needed.  This is how CI checks the bundle and this runner.

usage: run_bundle.py BUNDLE [--emulated] [--group ops|zoo] [CASE ...]"""
import json
import os
import subprocess
import sys
import threading
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "python"))
import shapec  # noqa: E402

STICKY = 3  # the child's exit status after a CUDA error: start a fresh process


def compare(got, want):
    """(worst relative error, integers exact) of one output, the numerics tests' rule."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return float("inf"), False
    if want.dtype.kind != "f":
        return 0.0, bool(np.array_equal(got, want))
    if not np.array_equal(np.isnan(got), np.isnan(want)):
        return float("inf"), True
    inf = np.isinf(want)
    if not np.array_equal(got[inf], want[inf]):
        return float("inf"), True
    finite = np.isfinite(want)
    if not finite.any():
        return 0.0, True
    g, w = got[finite].astype(np.float64), want[finite].astype(np.float64)
    return float(np.abs(g - w).max() / max(1.0, float(np.abs(w).max()))), True


class Runner:
    def __init__(self, emulated):
        self.emulated = emulated
        if not emulated:
            import torch
            self.torch = torch

    def to_device(self, a):
        return a if self.emulated else self.torch.from_numpy(a).cuda()

    def to_host(self, t):
        return t if self.emulated else t.cpu().numpy()

    def call(self, model, xs, inputs_after=None):
        """The outputs on the host; inputs_after, a list, receives the inputs' values after
        the call (a program may change an input in place)."""
        ins = [self.to_device(x) for x in xs]
        out = model(*ins)
        out = list(out) if isinstance(out, tuple) else [out]
        if inputs_after is not None:
            inputs_after += [self.to_host(x) for x in ins]
        return [self.to_host(o) for o in out]

    def case(self, path):
        """[(ok, message)] for one case folder."""
        with open(os.path.join(path, "case.json")) as f:
            case = json.load(f)
        name = case["name"]
        model = shapec.load(os.path.join(path, "model.so"))
        results = []
        for run in case["runs"]:
            xs = [np.load(os.path.join(path, f)) for f in run["inputs"]]
            wants = [np.load(os.path.join(path, f)) for f in run["want"]]
            shapes = [list(x.shape) for x in xs]
            try:
                t0 = time.perf_counter()
                after = []
                got = self.call(model, xs, after)
                ms = (time.perf_counter() - t0) * 1e3
            except shapec.ShapecError as e:
                results.append((False, f"{name}: runs at {shapes} ({e.code}: {str(e)[:300]})"))
                if e.code == 6:  # SHAPEC_ERR_CUDA: the context may be gone
                    return results, True
                continue
            worst, exact = 0.0, len(got) == len(wants)
            for g, w in zip(got, wants):
                err, same = compare(g, w)
                worst, exact = max(worst, err), exact and same
            results.append((worst < 1e-4 and exact, f"{name}: matches ATen at {shapes} (error {worst:.1e}"
                            f"{'' if exact else ', integers or shapes differ'}; first call {ms:.1f} ms)"))
            for i, f in run.get("after", {}).items():  # an input the program changes in place
                err, same = compare(after[int(i)], np.load(os.path.join(path, f)))
                results.append((err < 1e-4 and same, f"{name}: input {case['inputs'][int(i)]} afterwards holds ATen's "
                                f"new value at {shapes} (error {err:.1e})"))
        return results, False

    def abi(self, path):
        """The calling conventions on the GPU, with the case's first run."""
        with open(os.path.join(path, "case.json")) as f:
            case = json.load(f)
        name, run = case["name"], case["runs"][0]
        model = shapec.load(os.path.join(path, "model.so"))
        xs = [np.load(os.path.join(path, f)) for f in run["inputs"]]
        serial = self.call(model, xs)
        results = []
        # four threads at once, ten calls each: the same results as the serial call
        errors, mismatches = [], []

        def worker():
            try:
                if not self.emulated:  # each thread on its own torch stream
                    with self.torch.cuda.stream(self.torch.cuda.Stream()):
                        outs = [self.call(model, xs) for _ in range(10)]
                else:
                    outs = [self.call(model, xs) for _ in range(10)]
                for out in outs:
                    if any(not np.array_equal(a, b, equal_nan=a.dtype.kind == "f") for a, b in zip(out, serial)):
                        mismatches.append(1)
            except Exception as e:  # noqa: BLE001
                errors.append(repr(e)[:200])

        threads = [threading.Thread(target=worker) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        results.append((not errors and not mismatches, f"{name}: 4 threads x 10 calls on their own streams give the "
                        f"serial results ({len(mismatches)} differ; {errors[:1]})"))
        # a wrong rank is refused by the guards, with torch's message
        bad = [x[None] if x.ndim else x for x in xs]
        try:
            self.call(model, bad)
            results.append((False, f"{name}: an input of another rank is refused"))
        except shapec.GuardError as e:
            results.append(("rank" in str(e) or "dimensions" in str(e) or "dim" in str(e),
                            f"{name}: an input of another rank is refused: {str(e)[:160]}"))
        if not self.emulated and len(xs) > 1 and xs[1].ndim:
            mixed = [self.to_device(xs[0])] + [xs[1]] + [self.to_device(x) for x in xs[2:]]
            try:
                model(*mixed)
                results.append((False, f"{name}: a CPU input beside CUDA inputs is refused"))
            except shapec.ShapecError as e:
                results.append((e.code == 2, f"{name}: a CPU input beside CUDA inputs is refused: {str(e)[:160]}"))
        return results


def child(bundle, cases, emulated):
    runner = Runner(emulated)
    first_of_group = {}
    for c in cases:
        first_of_group.setdefault(os.path.dirname(c), c)
    for c in cases:
        try:
            results, sticky = runner.case(os.path.join(bundle, c))
            if c in first_of_group.values() and not sticky:
                results += runner.abi(os.path.join(bundle, c))
        except Exception as e:  # noqa: BLE001
            results, sticky = [(False, f"{c}: {type(e).__name__}: {str(e)[:300]}")], "CUDA" in str(e)
        for ok, msg in results:
            print(("ok - " if ok else "not ok - ") + msg, flush=True)
        print(f"# done {c}", flush=True)
        if sticky:
            sys.exit(STICKY)


def main():
    args = sys.argv[1:]
    emulated = "--emulated" in args
    group = args[args.index("--group") + 1] if "--group" in args else None
    rest = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or args[i - 1] != "--group")]
    if "--child" in args:
        return child(rest[0], rest[1:], emulated)
    bundle, wanted = rest[0], rest[1:]
    cases = sorted(os.path.join(g, c) for g in os.listdir(bundle) if os.path.isdir(os.path.join(bundle, g))
                   and (group is None or g == group) for c in os.listdir(os.path.join(bundle, g))
                   if not wanted or c in wanted)
    failed, passed, by_group = [], 0, {}
    while cases:
        cmd = [sys.executable, os.path.abspath(__file__), "--child", bundle] + cases + (["--emulated"] if emulated else [])
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
            out, rc = r.stdout, r.returncode
        except subprocess.TimeoutExpired as e:
            out, rc = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or ""), -1
        done = []
        for line in out.splitlines():
            print(line, flush=True)
            if line.startswith("# done "):
                done.append(line[len("# done "):])
            elif line.startswith(("ok - ", "not ok - ")):
                case = cases[len(done)] if len(done) < len(cases) else "?"
                g = by_group.setdefault(os.path.dirname(case), [0, set()])
                if line.startswith("ok"):
                    passed += 1
                    g[0] += 1
                else:
                    failed.append(line)
                    g[1].add(case)
        cases = cases[len(done):]
        if rc not in (0, STICKY) and cases:  # crashed or hung inside cases[0]
            failed.append(f"not ok - {cases[0]}: the process ended with {rc}: {(r.stderr if rc != -1 else 'timeout')[-300:]}")
            print(failed[-1], flush=True)
            by_group.setdefault(os.path.dirname(cases[0]), [0, set()])[1].add(cases[0])
            cases = cases[1:]
    for g, (ok, bad) in sorted(by_group.items()):
        print(f"# {g}: {ok} checks pass; {len(bad)} cases with a failure{': ' + ', '.join(sorted(bad)) if bad else ''}")
    print(f"# {passed} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
