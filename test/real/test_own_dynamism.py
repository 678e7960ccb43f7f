#!/usr/bin/env python3
"""test_own_dynamism.py - without --dynamic, a real program keeps the dynamism torch gave it.

usage: test_own_dynamism.py SHAPEC SOURCE_DIR

On files of the corpus (test/real/corpus/, written by torch 2.14 and 2.6) and on copies
edited to break one thing each, checks that shapec export without a spec
  - takes the program's symbols, range_constraints and guards_code (report "dynamism":
    "program", torch's symbol names and ranges, the guards as input guards);
  - builds a library that accepts and refuses the sizes torch's ep.module() does
    (lower bounds of 2 or less are tracing's assumption and stay unchecked);
  - keeps guards_code with --dynamic too;
  - warns (SC0606) on a guard it cannot read, refuses (SC0606) one that can never hold,
    and warns (SC0605) where a node's meta differs from the size it derives."""
import json
import os
import subprocess
import sys
import tempfile
import zipfile

import numpy as np

FAILURES = []


def check(cond, what):
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        FAILURES.append(what)


def export(shapec, model, out, *extra):
    r = subprocess.run([shapec, "export", model, "-o", out, "-q", *extra], capture_output=True, text=True)
    report = None
    if os.path.exists(os.path.join(out, "constraints.json")):
        report = json.load(open(os.path.join(out, "constraints.json")))
    return r, report


def run(shapec, out, tmp, **inputs):
    """Runs the library on zero-filled float32 inputs of the given shapes."""
    cmd = [shapec, "run", os.path.join(out, "model.so"), "--out", os.path.join(tmp, "res")]
    for name, shape in inputs.items():
        path = os.path.join(tmp, f"{name}.npy")
        np.save(path, np.zeros(shape, dtype=np.float32))
        cmd += ["--input", f"{name}={path}"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def edited(src, dst, edit):
    """A copy of a torch 2.14 archive with its program JSON passed through edit()."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename.endswith("models/model.json"):
                program = json.loads(data)
                edit(program)
                data = json.dumps(program).encode()
            zout.writestr(item.filename, data)


def main(argv):
    shapec, src = argv[1], argv[2]
    corpus = os.path.join(src, "test", "real", "corpus")
    with tempfile.TemporaryDirectory(prefix="shapec-own-") as tmp:
        out = os.path.join(tmp, "out")

        # a Python `if x.shape[0] > 4`: range [5, int_oo], checked on the call
        r, rep = export(shapec, os.path.join(corpus, "2.14/if_gt/model.pt2"), out)
        check(r.returncode == 0 and rep["dynamism"] == "program", "if_gt exports with the program's own dynamism")
        check(rep["range_constraints"].get("s77") == {"min": 5, "max": None}, "if_gt: s77 in [5, int_oo] as torch says")
        check([i["shape"] for i in rep["inputs"]] == [["s77", 2]], "if_gt: x is [s77, 2]")
        check(any(g["text"] == "x.size()[0] > 4" for g in rep["input_guards"]), "if_gt: guards_code is an input guard")
        for rows, ok in [(5, True), (12, True), (4, False), (0, False)]:
            rc, msg = run(shapec, out, tmp, x=(rows, 2))
            check((rc == 0) == ok, f"if_gt: x of {rows} rows is {'accepted' if ok else 'refused'} (torch: same)")
        rc, msg = run(shapec, out, tmp, x=(4, 2))
        check("x.size()[0]" in msg, "if_gt: the refusal names x.size()[0]")

        # a named Dim from 2 to 64: 0 and 1 pass (2 is tracing's assumption), 65 does not
        r, rep = export(shapec, os.path.join(corpus, "2.14/named_range/model.pt2"), out)
        check(rep["range_constraints"].get("s77") == {"min": 2, "max": 64}, "named_range: s77 in [2, 64]")
        for rows, ok in [(0, True), (1, True), (64, True), (65, False)]:
            rc, _ = run(shapec, out, tmp, x=(rows, 4))
            check((rc == 0) == ok, f"named_range: x of {rows} rows is {'accepted' if ok else 'refused'}")

        # a derived Dim: x is 2*s17 + 1, its range listed and checked beside s17's
        r, rep = export(shapec, os.path.join(corpus, "2.14/derived_affine/model.pt2"), out)
        check(rep["range_constraints"].get("2*s17 + 1") == {"min": 5, "max": 65}, "derived_affine: 2*s17 + 1 in [5, 65]")
        check([i["shape"] for i in rep["inputs"]] == [["2*s17 + 1"], ["s17"]], "derived_affine: x is [2*s17 + 1]")
        for xs, ys, ok in [(13, 6, True), (14, 6, False), (3, 1, False), (67, 33, False)]:
            rc, _ = run(shapec, out, tmp, x=(xs,), y=(ys,))
            check((rc == 0) == ok, f"derived_affine: x {xs}, y {ys} is {'accepted' if ok else 'refused'}")

        # guards_code holds with --dynamic too: x % 2 == 0 from a Python if
        spec = os.path.join(corpus, "2.14/if_mod/spec.json")
        r, rep = export(shapec, os.path.join(corpus, "2.14/if_mod/model.pt2"), out, "--dynamic", spec)
        check(r.returncode == 0 and rep["dynamism"] == "spec", "if_mod exports with its spec")
        check(any("% 2" in g["text"] for g in rep["input_guards"]), "if_mod: the guards_code guard stays with a spec")
        check(run(shapec, out, tmp, x=(7,))[0] != 0 and run(shapec, out, tmp, x=(8,))[0] == 0,
              "if_mod with a spec: 7 refused, 8 accepted")

        # a torch 2.6 archive has no guards_code: its ranges and equalities are the contract
        r, rep = export(shapec, os.path.join(corpus, "2.6/if_gt/model.pt2"), out)
        check(rep["range_constraints"].get("s0") == {"min": 5, "max": None} and rep["input_guards"] == [],
              "2.6 if_gt: s0 in [5, int_oo], no guards_code")
        check(run(shapec, out, tmp, x=(4, 2))[0] != 0, "2.6 if_gt: 4 rows refused by the range")

        # a guard shapec cannot read: a warning that says it is not checked, the export goes on
        src_gt = os.path.join(corpus, "2.14/if_gt/model.pt2")
        bad = os.path.join(tmp, "stride_guard.pt2")
        edited(src_gt, bad, lambda p: p["guards_code"].append("L['x'].stride()[0] == 2"))
        r, rep = export(shapec, bad, out)
        check(r.returncode == 0 and "SC0606" in r.stderr and "guards_code[1]" in r.stderr,
              "a guard outside the subset is a located SC0606 warning")

        # a guard that can never hold: SC0606 error, no library
        bad = os.path.join(tmp, "false_guard.pt2")
        edited(src_gt, bad, lambda p: p["guards_code"].append("L['x'].size()[1] == 3"))
        out2 = os.path.join(tmp, "out2")
        r, rep = export(shapec, bad, out2)
        check(r.returncode != 0 and "SC0606" in r.stderr and not os.path.exists(os.path.join(out2, "model.so")),
              "a guard that can never hold is an SC0606 error and writes no library")

        # a guard naming no input
        bad = os.path.join(tmp, "unknown_input.pt2")
        edited(src_gt, bad, lambda p: p["guards_code"].append("L['nope'].size()[0] > 1"))
        r, rep = export(shapec, bad, out)
        check("SC0606" in r.stderr and "names no user input" in r.stderr, "a guard naming no input is reported")

        # crafted guards: deep nesting, long unary chains, guards_code of the wrong type
        for label, text in (("nested", "(" * 100000 + "1" + ")" * 100000 + " == 1"),
                            ("unary", "-" * 100000 + "L['x'].size()[0] > 4"),
                            ("not", "not " * 50000 + "L['x'].size()[0] > 4")):
            bad = os.path.join(tmp, f"{label}.pt2")
            edited(src_gt, bad, lambda p, t=text: p["guards_code"].append(t))
            r, rep = export(shapec, bad, out)
            check(r.returncode == 0 and "SC0606" in r.stderr and "nests too deeply" in r.stderr,
                  f"a guard of {label} depth 100000 is a located warning, not a crash")
        bad = os.path.join(tmp, "guards_not_list.pt2")
        edited(src_gt, bad, lambda p: p.__setitem__("guards_code", 7))
        out3 = os.path.join(tmp, "out3")
        r, rep = export(shapec, bad, out3)
        check(r.returncode != 0 and "guards_code" in r.stderr and not os.path.exists(os.path.join(out3, "model.so")),
              "guards_code that is not a list is a located error with no library")

        # a node meta that is another expression with the same sample value: SC0605
        def other_meta(p):
            add = p["graph_module"]["graph"]["tensor_values"]["add"]
            add["sizes"][0] = {"as_expr": {"expr_str": "Add(Mul(Integer(2), Symbol('s17', positive=True, "
                                           "integer=True)), Integer(-6))", "hint": {"as_int": 6}}}
        bad = os.path.join(tmp, "meta_differs.pt2")
        edited(os.path.join(corpus, "2.14/derived_affine/model.pt2"), bad, other_meta)
        r, rep = export(shapec, bad, out)
        check(r.returncode == 0 and "SC0605" in r.stderr and "2*s17 - 6" in r.stderr,
              "a meta that differs from the derived size is an SC0605 warning")

    print(f"{len(FAILURES)} failures")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
