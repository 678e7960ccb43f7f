#!/usr/bin/env python3
"""test_deferred.py - shapec export --prefer-deferred-runtime-asserts beside torch.export's
prefer_deferred_runtime_asserts_over_guards (issue 14), on the programs gen_deferred.py
stored with torch 2.14's answers.

usage: test_deferred.py SHAPEC

For each case the spec (a named Dim) is re-applied to the program exported with
Dim.AUTO: without the flag shapec must refuse as torch does (SC0601, "Constraints
violated"); with it, shapec must refuse where torch still does, and otherwise export with
torch's range for the Dim and give ep.module()'s verdict on every probe size, a refused
size failing with torch's kind of message ("Runtime assertion failed for expression ..."
for a deferred guard, "Guard failed: ..." for a bound); the report records the option,
and `shapec check` against that report finds no change (it re-analyses with the option)."""
import ctypes
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from test_corpus import call_library  # noqa: E402


def export(shapec, case, out, flag):
    cmd = [shapec, "export", os.path.join(case, "auto.pt2"), "--dynamic", os.path.join(case, "spec.json"), "-o", out, "-q"]
    return subprocess.run(cmd + (["--prefer-deferred-runtime-asserts"] if flag else []), capture_output=True, text=True)


def check_case(shapec, name, tmp):
    case = os.path.join(HERE, name)
    torch = json.load(open(os.path.join(case, "torch.json")))
    fails = []
    for key, flag in (("default", False), ("deferred", True)):
        want = torch[key]
        r = export(shapec, case, os.path.join(tmp, name + key), flag)
        if want["export"] != "ok":
            if r.returncode != 1 or "Constraints violated (dx)!" not in r.stderr:
                fails.append(f"{key}: torch refuses, shapec exit {r.returncode}: {r.stderr.strip()[:200]}")
            continue
        if r.returncode != 0:
            fails.append(f"{key}: torch exports, shapec refuses: {r.stderr.strip()[:200]}")
            continue
        report_path = os.path.join(tmp, name + key, "constraints.json")
        report = json.load(open(report_path))
        if flag:
            # the report records the option, and `shapec check` re-analyses with it
            if report.get("prefer_deferred_runtime_asserts") is not True:
                fails.append(f"{key}: the report does not record --prefer-deferred-runtime-asserts")
            c = subprocess.run([shapec, "check", os.path.join(case, "auto.pt2"), "--dynamic", os.path.join(case, "spec.json"),
                                "--baseline", report_path], capture_output=True, text=True)
            if c.returncode != 0:
                fails.append(f"{key}: shapec check against its own report: exit {c.returncode} {c.stdout.strip()[:200]}")
        ranges = [[v["min"], v["max"]] for v in report["range_constraints"].values()]
        if ranges != list(want["range_constraints"].values()):
            fails.append(f"{key}: ranges torch {want['range_constraints']}, shapec {report['range_constraints']}")
        lib = ctypes.CDLL(os.path.join(tmp, name + key, "model.so"))
        lib.shapec_model_output_dtype.restype = ctypes.c_int
        for size, verdict in want["verdicts"].items():
            got = call_library(lib, [np.random.default_rng(0).standard_normal(int(size)).astype(np.float32)])
            if (verdict == "ok") != (got is None):
                fails.append(f"{key}: size {size}: torch {verdict!r}, shapec {got or 'ok'!r}")
            elif got is not None and got.split(" for expression")[0].split(":")[0] != verdict.split(" for expression")[0].split(":")[0]:
                fails.append(f"{key}: size {size}: torch's message {verdict!r}, shapec's {got!r}")
    return fails


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    cases = sorted(d for d in os.listdir(HERE) if os.path.exists(os.path.join(HERE, d, "torch.json")))
    bad = 0
    with tempfile.TemporaryDirectory(prefix="shapec-deferred-") as tmp:
        for name in cases:
            fails = check_case(argv[1], name, tmp)
            bad += bool(fails)
            print(("ok - " if not fails else "not ok - ") + name)
            for f in fails:
                print("#   " + f)
    print(f"# {len(cases) - bad} of {len(cases)} cases agree with torch 2.14")
    return 1 if bad or not cases else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
