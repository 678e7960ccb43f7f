#!/usr/bin/env python3
"""test_corpus.py - shapec on the programs real torch.export wrote (test/real/corpus/).

usage: test_corpus.py SHAPEC SOURCE_DIR [--update]

Each program of the corpus (model.pt2, and decomposed.pt2 after run_decompositions()) is
exported by shapec without a spec, and where that works its library is run on torch's
sample inputs and the outputs compared with torch's (1e-4 relative).  The outcome of every
file is compared with the ledger test/real/expected.txt, one line per file:

    2.14/auto_add/model.pt2: ok
    2.14/sdpa/decomposed.pt2: export-fails SC0201

so the test fails both when something that worked breaks and when something listed as
failing starts to work (then --update rewrites the ledger, reviewed in the diff like a
golden file).  Prints the counts per torch version."""
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

DTYPES = {"float32": np.float32, "float64": np.float64, "int64": np.int64, "int32": np.int32, "bool": np.bool_}


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def first_code(text):
    for word in text.replace("[", " ").replace("]", " ").split():
        if word.startswith("SC") and word[2:6].isdigit():
            return word[:6]
    return "?"


def close(got, want):
    want = np.asarray(want, dtype=np.float64)
    got = np.asarray(got, dtype=np.float64).reshape(want.shape)
    if want.size == 0:
        return True
    if not np.array_equal(np.isnan(got), np.isnan(want)):
        return False
    mask = ~np.isnan(want)
    scale = max(1.0, float(np.max(np.abs(want[mask])))) if mask.any() else 1.0
    return bool(np.all(np.abs(got[mask] - want[mask]) <= 1e-4 * scale))


def check_numerics(shapec, so, report, answers, tmp):
    """Runs the library on torch's sample inputs; '' when the outputs match, else why."""
    users = [i for i in report["inputs"] if i["kind"] == "user_input"]
    samples = answers["sample_inputs"]
    tensors = [s for s in samples if "shape" in s]
    if len(tensors) != len(samples) or len(users) != len(tensors) or any("data" not in s for s in tensors):
        return "numerics-skipped"
    cmd = [shapec, "run", so, "--out", tmp]
    for spec, s in zip(users, tensors):
        if s["dtype"] not in DTYPES:
            return "numerics-skipped"
        path = os.path.join(tmp, f"in_{spec['name']}.npy")
        np.save(path, np.asarray(s["data"], dtype=DTYPES[s["dtype"]]).reshape(s["shape"]))
        cmd += ["--input", f"{spec['name']}={path}"]
    r = run(cmd)
    if r.returncode != 0:
        return f"run-fails {first_code(r.stdout + r.stderr)}"
    outs = [o for o in report["outputs"]]
    want = answers["sample_outputs"]
    # user outputs come last in the output spec (buffer mutations first)
    outs = outs[len(outs) - len(want):] if len(outs) >= len(want) else None
    if outs is None:
        return "numerics-differ (output count)"
    for o, w in zip(outs, want):
        if "data" not in w:
            continue
        got = np.load(os.path.join(tmp, o["name"] + ".npy"))
        if list(got.shape) != w["shape"] or not close(got, w["data"]):
            return "numerics-differ"
    return ""


def check_file(shapec, root, rel):
    """The outcome of one archive of the corpus, as a ledger word."""
    case_dir = os.path.dirname(os.path.join(root, rel))
    answers = json.load(open(os.path.join(case_dir, "answers.json")))
    with tempfile.TemporaryDirectory(prefix="shapec-corpus-") as tmp:
        out = os.path.join(tmp, "out")
        r = run([shapec, "export", os.path.join(root, rel), "-o", out, "-q"])
        if r.returncode != 0:
            return f"export-fails {first_code(r.stdout + r.stderr)}"
        if not rel.endswith("model.pt2"):
            return "ok"  # torch's sample outputs belong to the program as exported
        report = json.load(open(os.path.join(out, "constraints.json")))
        why = check_numerics(shapec, os.path.join(out, "model.so"), report, answers, tmp)
        return why or "ok"


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    shapec, src = argv[1], argv[2]
    update = "--update" in argv[3:]
    root = os.path.join(src, "test", "real", "corpus")
    ledger_path = os.path.join(src, "test", "real", "expected.txt")
    files = sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs if f.endswith(".pt2"))
    if not files:
        print("no corpus under", root)
        return 1
    jobs = os.cpu_count() or 2
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        results = dict(zip(files, pool.map(lambda f: check_file(shapec, root, f), files)))
    counts = {}
    for f, outcome in results.items():
        version = f.split("/")[0]
        word = outcome.split()[0]
        counts.setdefault(version, {}).setdefault(word, 0)
        counts[version][word] += 1
    for version in sorted(counts):
        print(f"torch {version}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts[version].items())))
    lines = [f"{f}: {results[f]}" for f in files]
    if update:
        with open(ledger_path, "w") as fh:
            fh.write("\n".join(lines) + "\n")
        print("wrote", ledger_path)
        return 0
    expected = open(ledger_path).read().splitlines() if os.path.exists(ledger_path) else []
    if expected == lines:
        print(f"{len(files)} corpus files as the ledger says")
        return 0
    want = dict(line.split(": ", 1) for line in expected if ": " in line)
    for f in files:
        if want.get(f) != results[f]:
            print(f"{f}: ledger says {want.get(f, '(nothing)')!r}, now {results[f]!r}")
    for f in sorted(set(want) - set(results)):
        print(f"{f}: in the ledger but not in the corpus")
    print("the corpus outcomes differ from test/real/expected.txt (update it with --update when the change is intended)")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
