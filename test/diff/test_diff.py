#!/usr/bin/env python3
"""test_diff.py - shapec beside torch.export 2.14 on the differential tester's programs.

usage: test_diff.py SHAPEC DIR [--mode A|B|C] [--explain] [--update LEDGER] [--ledger LEDGER]

Modes (issue 63): B, the default, is described below; A reads torch's dynamic file as it
is (`shapec export model.pt2`, no spec: the programs torch exported), its probes compared
with the module of that file as torch.export.load gives it back (file_probes); C applies the spec
to the program torch exported without one (static.pt2, which the family seeds keep:
what a user with only a static export gets).  Each compares the same things.

For each program DIR/p<seed>/ (gen_programs.py), shapec exports with the spec re-applied
(`--dynamic spec.json`) the program torch exported with it (model.pt2, whose guards_code
carries the Python-level guards), or where torch refused, the program exported without a
spec (static.pt2), and is compared with what torch 2.14 decided:
- the outcome: both export, or both refuse (torch's "Constraints violated" against a
  shapec violation);
- when both export: every user input dim, static (the same size), or symbolic with the
  same range, the same equalities between dims and the same derived expressions (torch's
  symbol names mapped to shapec's by first appearance);
- the runtime verdict of the library on torch's probe shapes against ep.module()'s.
A program agrees when all of these do.  Prints the agreement and the classes of
disagreement; with --ledger, fails when a program's outcome differs from the ledger (the
committed set runs in CI that way)."""
import ctypes
import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "real"))
from test_corpus import call_library, callable_samples, probe_arrays  # noqa: E402

SYM = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")
# torch's refusals of a probe that shapec words as torch does: its guards, and the checks of
# convolution and pooling kernels (backends/llvm/cg_aten_checks.c)
WORDS_KEPT = ("Guard failed:", "Calculated padded input size per channel:", "Only zero batch or zero channel inputs",
              "Expected 3D or 4D (batch mode) tensor", "Given input size:", "max_pool1d")
# a refusal decided by a data-dependent value (an assert on u0, u0's range)
DATA_DEPENDENT = re.compile(r"Runtime assertion failed for expression .*\bu\d+\b|\bu\d+ = -?\d+ .* is outside its range")


def norm_range(lo, hi):
    big = 2 ** 62
    lo = None if lo is None or abs(lo) >= big else lo
    hi = None if hi is None or abs(hi) >= big else hi
    return [lo, hi]


def dims_of(shapes):
    """[(input index, dim, text)] of every tensor input's dims."""
    return [(i, d, str(s)) for i, shape in enumerate(shapes) if shape is not None for d, s in enumerate(shape)]


def same_expression(t, o, mapping):
    """Whether torch's size expression t is shapec's o with torch's symbols renamed by
    mapping, which it extends with the symbols t names first."""
    ts, os_ = SYM.findall(t), SYM.findall(o)
    if len(ts) != len(os_) or SYM.sub("@", t).replace(" ", "") != SYM.sub("@", o).replace(" ", ""):
        return False
    trial = dict(mapping)
    for a, b in zip(ts, os_):
        if trial.setdefault(a, b) != b:
            return False
    mapping.update(trial)
    return True


def compare_dims(torch_shapes, torch_rc, ours, our_rc):
    """Differences between torch's and shapec's input dims, as short class words."""
    t_dims, o_dims = dims_of(torch_shapes), dims_of(ours)
    if [(i, d) for i, d, _ in t_dims] != [(i, d) for i, d, _ in o_dims]:
        return ["input-ranks"]
    mapping, why = {}, []
    for (i, d, t), (_, _, o) in zip(t_dims, o_dims):
        if t.isdigit() or o.isdigit():
            if t != o:
                why.append(f"static-vs-symbolic x{i}.{d} torch={t} shapec={o}")
            continue
        ts, os_ = SYM.findall(t), SYM.findall(o)
        if len(ts) == 1 and t == ts[0] and len(os_) == 1 and o == os_[0]:
            if mapping.setdefault(ts[0], os_[0]) != os_[0]:
                why.append(f"equalities x{i}.{d}")
                continue
            tr = norm_range(*torch_rc.get(t, [None, None]))
            orr = our_rc.get(o)
            orr = norm_range(orr["min"], orr["max"]) if orr else [None, None]
            if tr != orr:
                why.append(f"range x{i}.{d} torch={tr} shapec={orr}")
        else:  # derived: the same expression once torch's symbols are renamed (a symbol seen
            # first here, a phantom Dim's, maps to the one in the same place)
            if not same_expression(t, o, mapping):
                why.append(f"derived x{i}.{d} torch={t} shapec={o}")
    return why


def probe_verdicts(so, answers, probes_key="probes"):
    samples = answers["sample_inputs"]
    lib = ctypes.CDLL(so)
    if not callable_samples(samples) or lib.shapec_model_num_inputs() != len(samples):
        return 0, 0, [f"inputs: the library takes {lib.shapec_model_num_inputs()}, torch's module {len(samples)}"]
    lib.shapec_model_output_dtype.restype = ctypes.c_int
    rng = np.random.default_rng(0)
    agree, why = 0, []
    for p in answers.get(probes_key, []):
        got = call_library(lib, probe_arrays(samples, p, rng))
        refusal = got if got is not None else (p["verdict"]["message"] if p["verdict"] != "ok" else "")
        if DATA_DEPENDENT.search(refusal):
            # decided by the data, which torch's probe drew at random: not comparable
            continue
        if (p["verdict"] == "ok") == (got is None):
            agree += 1
            # both refuse: torch's message (Guard failed: x.size()[0] <= 100) must be in
            # shapec's; and where both refuse in a kernel's check, their words must be the same
            # (where shapec's own guards refuse first, the order is shapec's)
            torch_msg = p["verdict"]["message"] if got is not None else ""
            kernel = torch_msg.startswith(WORDS_KEPT[1:]) and got.startswith(WORDS_KEPT[1:])
            if (torch_msg.startswith("Guard failed:") or kernel) and torch_msg not in got:
                why.append(f"message {p['leaf']}.{p['dim']}={p['size']} torch={torch_msg!r} shapec={got!r}")
        else:
            why.append(f"probe {p['leaf']}.{p['dim']}={p['size']} torch={'ok' if p['verdict'] == 'ok' else 'refuses'} "
                       f"shapec={'ok' if got is None else 'refuses'}")
    return agree, len(answers.get(probes_key, [])), why


def check_program(shapec, d, mode="B"):
    """(outcome word, reasons) for one program."""
    if not os.path.exists(os.path.join(d, "answers.json")):
        return "skipped", ["the generator could not make it (no answers.json)"]
    answers = json.load(open(os.path.join(d, "answers.json")))
    torch_ok = answers["export"] == "ok"
    if mode == "A" and not torch_ok:
        return "skipped", ["torch refused the spec: no dynamic file to read"]
    # where torch exported, the spec is re-applied to its program (its guards_code holds the
    # Python-level guards); where it refused, to the program torch exported with every dim
    # AUTO (auto.pt2, whose guards_code holds them too), else to the static one
    candidates = ["model.pt2"] if torch_ok else ["auto.pt2", "static.pt2"]
    if mode == "C":
        candidates = ["static.pt2"]
    program = next((os.path.join(d, c) for c in candidates if os.path.exists(os.path.join(d, c))), None)
    if answers.get("static") != "ok" or not program:
        return "skipped", ["torch cannot export it statically" if answers.get("static") != "ok" else "no static.pt2"]
    if not os.path.exists(os.path.join(d, "spec.json")) or "unserializable" in open(os.path.join(d, "spec.json")).read():
        return "skipped", ["torch cannot serialize the spec"]
    torch_violation = not torch_ok and "Constraints violated" in answers["export"]["message"]
    with tempfile.TemporaryDirectory(prefix="shapec-diff-") as tmp:
        out = os.path.join(tmp, "out")
        spec = [] if mode == "A" else ["--dynamic", os.path.join(d, "spec.json")]
        r = subprocess.run([shapec, "export", program, *spec, "-o", out, "-q"], capture_output=True, text=True)
        if not torch_ok:
            if r.returncode == 0:
                return "disagree", [f"torch refuses ({answers['export']['message'].splitlines()[0][:100]}), shapec exports"]
            if torch_violation and r.returncode != 1:
                return "disagree", [f"torch: a constraint violation; shapec: exit {r.returncode} {r.stderr.strip()[:100]}"]
            want, got = fixes(answers["export"]["message"]), fixes(r.stderr)
            if torch_violation and want != got:
                return "disagree", [f"fixes torch={sorted(want)} shapec={sorted(got)}"]
            want, got = violated(answers["export"]["message"]), violated(r.stderr)
            if torch_violation and want != got:
                return "disagree", [f"label torch={want} shapec={got}"]
            return "agree", []
        if r.returncode != 0:
            return "disagree", [f"torch exports, shapec refuses: {r.stderr.strip().splitlines()[0][:160] if r.stderr.strip() else r.returncode}"]
        report = json.load(open(os.path.join(out, "constraints.json")))
        users = [i for i in report["inputs"] if i["kind"] in ("user_input", "constant_input")]  # as torch lists placeholders
        ours = [[str(s) for s in i["shape"]] if i.get("dtype") else None for i in users]
        torch_shapes = [i["shape"] for i in answers["inputs"]][-len(users):] if users else []
        why = compare_dims(torch_shapes, answers["range_constraints"], ours, report.get("range_constraints", {}))
        # mode A reads torch's file: its reference is that file's module as torch.export.load
        # gives it back (file_probes, where the answers have them)
        key = "file_probes" if mode == "A" and "file_probes" in answers else "probes"
        agree, total, probe_why = probe_verdicts(os.path.join(out, "model.so"), answers, key)
        why += probe_why
        return ("agree" if not why else "disagree"), why


def fixes(message):
    """The lines of a 'Suggested fixes:' block (torch's, or shapec's in the same form)."""
    out, inside = set(), False
    for line in message.splitlines():
        if line.strip() == "Suggested fixes:":
            inside = True
        elif inside and line.startswith("  ") and "=" in line:
            out.add(line.strip())
        elif inside:
            inside = False
    return out


def violated(message):
    """What "Constraints violated (...)!" names: the Dims (r), or sizes (r - 1, L['x'].size()[0])."""
    return sorted(set(re.findall(r"Constraints violated \((.*?)\)!", message)))


def families_of(d):
    """The families families.py drew for a program (its program.py's first line), or none."""
    try:
        with open(os.path.join(d, "program.py")) as f:
            text = f.read()
    except OSError:
        return []
    m = re.search(r"^# families: ([^;\n]*)", text, re.M)
    return [s.strip() for s in m.group(1).split(",")] if m else []


def classify(reason):
    return reason.split(" ")[0] if not reason.startswith("torch") else " ".join(reason.split(" ")[:3])


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    shapec, root = argv[1], argv[2]
    explain = "--explain" in argv
    mode = argv[argv.index("--mode") + 1] if "--mode" in argv else "B"
    ledger = argv[argv.index("--ledger") + 1] if "--ledger" in argv else None
    update = argv[argv.index("--update") + 1] if "--update" in argv else None
    names = sorted((n for n in os.listdir(root) if n.startswith("p")), key=lambda n: int(n[1:]))
    with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        results = dict(zip(names, pool.map(lambda n: check_program(shapec, os.path.join(root, n), mode), names)))
    counts, classes, by_family = {}, {}, {}
    for n, (word, why) in results.items():
        counts[word] = counts.get(word, 0) + 1
        if word in ("agree", "disagree"):
            for fam in families_of(os.path.join(root, n)):
                by_family.setdefault(fam, [0, 0])[word == "agree"] += 1
        for c in {classify(w) for w in why}:
            classes[c] = classes.get(c, 0) + 1
        if explain and why:
            print(f"{n}: {word}: " + "; ".join(why[:4]))
    compared = counts.get("agree", 0) + counts.get("disagree", 0)
    print(f"{len(names)} programs: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) +
          f"; agreement {counts.get('agree', 0)}/{compared} = {100.0 * counts.get('agree', 0) / max(1, compared):.1f}%")
    for c, k in sorted(classes.items(), key=lambda kv: -kv[1]):
        print(f"  {k:5} {c}")
    if by_family:
        print("per family (a program counts for each family it uses): " + ", ".join(
            f"{f} {ok}/{ok + bad}" for f, (bad, ok) in sorted(by_family.items())))
    lines = [f"{n}: {results[n][0]}" for n in names]
    if update:
        with open(update, "w") as f:
            f.write("\n".join(lines) + "\n")
        return 0
    if ledger:
        want = open(ledger).read().splitlines()
        if want != lines:
            w = dict(line.split(": ", 1) for line in want if ": " in line)
            for n in names:
                if w.get(n) != results[n][0]:
                    print(f"{n}: ledger says {w.get(n)!r}, now {results[n][0]!r} ({'; '.join(results[n][1][:2])})")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
