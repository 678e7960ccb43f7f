#!/usr/bin/env python3
"""test_corpus.py - shapec on the programs real torch.export wrote (test/real/corpus/).

usage: test_corpus.py SHAPEC SOURCE_DIR [--update] [--explain] [--times] [NAME...]

Each program of the corpus (model.pt2, and decomposed.pt2 after run_decompositions()) is
exported by shapec without a spec, and where that works its library is run on torch's
sample inputs and the outputs compared with torch's (1e-4 relative).  The outcome of every
file is compared with the ledger test/real/expected.txt, one line per file:

    2.14/auto_add/model.pt2: ok
    2.14/sdpa/decomposed.pt2: export-fails SC0201

so the test fails both when something that worked breaks and when something listed as
failing starts to work (then --update rewrites the ledger, reviewed in the diff like a
golden file).  The big zoo models are stored thin (NAME.pt2.thin, thin.py): their
archives are restored, weights recomputed and checked, in a temporary folder first.
Prints the counts per torch version; --times also the 20 slowest files (CI time is a budget).

SHAPEC_CORPUS_QUICK=1 (the sanitizer pass, test/CMakeLists.txt) leaves out the zoo runs,
which export each zoo and Hugging Face program twice more only to compare outputs at more
shapes, and the probes, which call the library from this uninstrumented Python process,
and compares the other words with the ledger's.  The sample's numerics stay: `shapec run`
loads the library into the sanitized process."""
import concurrent.futures
import ctypes
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import thin  # noqa: E402

QUICK = os.environ.get("SHAPEC_CORPUS_QUICK") == "1"
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
    g, w = got[mask], want[mask]
    finite = np.isfinite(w)  # an infinity must be met exactly; the finite values set the scale
    scale = max(1.0, float(np.max(np.abs(w[finite])))) if finite.any() else 1.0
    with np.errstate(invalid="ignore"):
        return bool(np.all((g == w) | (finite & (np.abs(g - w) <= 1e-4 * scale))))


def check_numerics(shapec, so, report, answers, tmp):
    """Runs the library on torch's sample inputs; '' when the outputs match, else why."""
    # what the library takes: user inputs and constant scalars, in the signature's order
    names = [i["name"] for i in report["inputs"] if i["kind"] in ("user_input", "constant_input")]
    samples = answers["sample_inputs"]
    if len(names) != len(samples) or not callable_samples(samples) or \
            any("shape" in s and "data" not in s for s in samples):
        return "numerics-skipped"
    cmd = [shapec, "run", so, "--out", tmp]
    for name, s in zip(names, samples):
        if "value" in s:  # a scalar, written on the command line (--input n=5)
            cmd += ["--input", f"{name}={s['value']!r}"]
            continue
        path = os.path.join(tmp, f"in_{name}.npy")
        np.save(path, np.asarray(s["data"], dtype=DTYPES[s["dtype"]]).reshape(s["shape"]))
        cmd += ["--input", f"{name}={path}"]
    r = run(cmd)
    if r.returncode != 0:
        return f"run-fails {first_code(r.stdout + r.stderr)}"
    n_outs = len(report["outputs"])  # `shapec run` writes the K-th as output_K.npy
    want = answers["sample_outputs"]
    # user outputs come last in the output spec (buffer mutations first)
    first = n_outs - len(want)
    if first < 0:
        return "numerics-differ (output count)"
    for k, w in enumerate(want):
        if "data" not in w:
            continue
        got = np.load(os.path.join(tmp, f"output_{first + k}.npy"))
        if list(got.shape) != w["shape"] or not close(got, w["data"]):
            return "numerics-differ"
    return ""


class Tensor(ctypes.Structure):
    """shapec_tensor (include/shapec/runtime.h), DLPack's DLTensor layout."""
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32),
                ("ndim", ctypes.c_int32), ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.c_void_p), ("byte_offset", ctypes.c_uint64)]


DL = {"float32": (2, 32), "float64": (2, 64), "int64": (0, 64), "int32": (0, 32), "bool": (6, 8)}
NP = {(2, 32): np.float32, (2, 64): np.float64, (0, 64): np.int64, (0, 32): np.int32, (6, 8): np.bool_}


def tensor(arr, keep):
    arr = np.require(arr, requirements="C")  # ascontiguousarray would make a 0-d array 1-d
    shape = (ctypes.c_int64 * max(1, arr.ndim))(*arr.shape)
    keep += [arr, shape]
    code, bits = DL[str(arr.dtype) if arr.dtype != np.bool_ else "bool"]
    return Tensor(arr.ctypes.data, 1, 0, arr.ndim, code, bits, 1, shape, None, 0)


def call_library(lib, arrays):
    """The library's verdict on these inputs: None when it runs, else its message."""
    keep = []
    n_out = lib.shapec_model_num_outputs()
    ins = (Tensor * max(1, len(arrays)))(*[tensor(a, keep) for a in arrays])
    shapes = [(ctypes.c_int64 * 16)() for _ in range(n_out)]
    shape_ptrs = (ctypes.POINTER(ctypes.c_int64) * max(1, n_out))(*[ctypes.cast(s, ctypes.POINTER(ctypes.c_int64))
                                                                      for s in shapes])
    err = ctypes.create_string_buffer(2048)
    if lib.shapec_model_output_shapes(ins, shape_ptrs, err, 2048):
        return err.value.decode(errors="replace") or "refused"
    outs = []
    for i in range(n_out):
        packed = lib.shapec_model_output_dtype(i)
        shape = list(shapes[i][:lib.shapec_model_output_ndim(i)])
        try:  # outputs the caller cannot allocate (4096**3 rows): torch's allocator refuses them too
            outs.append(tensor(np.zeros(shape, dtype=NP[(packed >> 8, packed & 255)]), keep))
        except (MemoryError, ValueError) as e:
            return f"the caller cannot allocate output {i} of shape {shape}: {e}"
    touts = (Tensor * max(1, n_out))(*outs)
    if lib.shapec_model_run(ins, touts, err, 2048):
        return err.value.decode(errors="replace") or "refused"
    return None


def sample_array(s, shape, rng):
    """A leaf of a probe: torch's sample where its shape is unchanged, else new values."""
    dtype = DTYPES[s["dtype"]]
    if list(shape) == s["shape"] and "data" in s:
        return np.asarray(s["data"], dtype=dtype).reshape(shape)
    if dtype == np.bool_:
        return rng.random(shape) > 0.5
    if np.issubdtype(dtype, np.integer):
        hi = max(1, int(max(s.get("data") or [1])) + 1)
        return rng.integers(0, hi, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def scalar_array(value):
    """A scalar input as the library takes it: a 0-d int64, float64 or bool array."""
    dtype = np.bool_ if isinstance(value, bool) else np.int64 if isinstance(value, int) else np.float64
    return np.array(value, dtype=dtype)


def probe_arrays(samples, probe, rng):
    """Every input of a probe: a tensor of the probe's shape, or a scalar (torch's sample
    value unless the probe moves it)."""
    values = probe.get("values") or [None] * len(samples)
    return [scalar_array(v if v is not None else s["value"]) if "value" in s else sample_array(s, shape, rng)
            for s, shape, v in zip(samples, probe["shapes"], values)]


def callable_samples(samples):
    """Whether the library can be called on these leaves: tensors of known dtypes, ints,
    floats and bools."""
    return all(("shape" in s and s.get("dtype") in DTYPES) or
               ("value" in s and isinstance(s["value"], (bool, int, float))) for s in samples)


def check_contract(so, report, answers):
    """shapec's contract beside torch's: ranges, input shapes, and the verdict on each probe.
    Returns (words for the ledger, lines that explain each difference)."""
    why = []
    ranges = report.get("range_constraints", {})
    want = answers.get("range_constraints", {})
    bad = [k for k in want if k not in ranges or [ranges[k]["min"], ranges[k]["max"]] != want[k]]
    why += [f"range {k}: torch {want[k]}, shapec {ranges.get(k)}" for k in bad]
    users = [i for i in report["inputs"] if i["kind"] == "user_input"]
    torch_shapes = [i["shape"] for i in answers["inputs"] if i["shape"] is not None]
    ours = [[str(d) for d in i.get("shape") or []] for i in users if i.get("dtype")]
    shapes_ok = ours == torch_shapes[len(torch_shapes) - len(ours):] if len(ours) <= len(torch_shapes) else False
    if not shapes_ok:
        why.append(f"input shapes: torch {torch_shapes}, shapec {ours}")
    words = ["ranges=" + ("ok" if not bad else f"{len(bad)}-differ"), "shapes=" + ("ok" if shapes_ok else "differ")]
    samples = answers["sample_inputs"]
    if QUICK:  # the probes run the library in this (uninstrumented) process: nothing to sanitize
        return words, why
    lib = ctypes.CDLL(so)
    if not callable_samples(samples) or lib.shapec_model_num_inputs() != len(samples):
        return words + ["probes=skipped"], why
    lib.shapec_model_output_dtype.restype = ctypes.c_int
    agree = 0
    rng = np.random.default_rng(0)
    for p in answers["probes"]:
        arrays = probe_arrays(samples, p, rng)
        got = call_library(lib, arrays)
        torch_ok = p["verdict"] == "ok"
        if torch_ok == (got is None):
            agree += 1
        else:
            torch_says = "ok" if torch_ok else p["verdict"]["message"].splitlines()[0][:160]
            why.append(f"probe {p['leaf']} dim {p['dim']} = {p['size']}: torch {torch_says!r}, shapec "
                       f"{'ok' if got is None else repr(got[:160])}")
    return words + [f"probes={agree}/{len(answers['probes'])}"], why


def filled(shape, k):
    """gen_corpus.filled() in numpy: sin over the flat index, in float64, then float32."""
    n = int(np.prod(shape)) if shape else 1
    return np.sin(np.arange(n, dtype=np.float64) * 0.01 + k).astype(np.float32).reshape(shape)


def filled_int(shape, k, lo, hi):
    """gen_corpus.filled_int() in numpy: integers in [lo, hi] from the flat index."""
    n = int(np.prod(shape)) if shape else 1
    return (lo + (np.arange(n, dtype=np.int64) * 7919 + 13 * k) % (hi - lo + 1)).reshape(shape)


def run_inputs(z):
    """A zoo run's inputs: floats by filled(), integers by filled_int() in their ranges."""
    ranges = z.get("int_ranges", {})
    return [filled_int(sh, k, *ranges[str(k)]) if str(k) in ranges else filled(sh, k) for k, sh in enumerate(z["shapes"])]


def run_outputs(lib, arrays):
    """The library's outputs on these inputs, or its message."""
    keep = []
    n_out = lib.shapec_model_num_outputs()
    ins = (Tensor * max(1, len(arrays)))(*[tensor(a, keep) for a in arrays])
    shapes = [(ctypes.c_int64 * 16)() for _ in range(n_out)]
    ptrs = (ctypes.POINTER(ctypes.c_int64) * max(1, n_out))(*[ctypes.cast(x, ctypes.POINTER(ctypes.c_int64)) for x in shapes])
    err = ctypes.create_string_buffer(2048)
    if lib.shapec_model_output_shapes(ins, ptrs, err, 2048):
        return err.value.decode(errors="replace")
    outs = [np.zeros(list(shapes[i][:lib.shapec_model_output_ndim(i)]), dtype=np.float32) for i in range(n_out)]
    touts = (Tensor * max(1, n_out))(*[tensor(o, keep) for o in outs])
    if lib.shapec_model_run(ins, touts, err, 2048):
        return err.value.decode(errors="replace")
    return outs


def check_zoo_runs(shapec, model, spec, answers, tmp, own=None):
    """A zoo model at its runs' shapes (range ends, 0 and the sample), exported without and
    with its spec: each output against torch's (1e-4 relative), or refused where torch
    refuses.  Returns (runs that
    match, runs, lines that explain a difference)."""
    good, total, why = 0, 0, []
    for label, extra in (("own", []), ("spec", ["--dynamic", spec])):
        out = os.path.join(tmp, "zoo_" + label)
        if label == "own" and own:  # the export check_file made already, with the same command
            out, r = own, subprocess.CompletedProcess([], 0, "", "")
        else:
            r = run([shapec, "export", model, "-o", out, "-q", *extra])
        lib = ctypes.CDLL(os.path.join(out, "model.so")) if r.returncode == 0 else None
        for z in answers["zoo_runs"]:
            total += 1
            if lib is None:
                why.append(f"zoo {label}: export fails: {r.stderr.strip()[:200]}")
                continue
            got = run_outputs(lib, run_inputs(z))
            if "error" in z:  # torch refuses this shape: so must the library
                if isinstance(got, str):
                    good += 1
                else:
                    why.append(f"zoo {label} at {z['at']} {z['shapes']}: torch refuses "
                               f"({z['error']['message'][:120]}), shapec runs")
                continue
            if isinstance(got, str):
                why.append(f"zoo {label} at {z['at']} {z['shapes']}: refused: {got[:200]}")
                continue
            bad = []
            for o, w in zip(got[len(got) - len(z["outputs"]):], z["outputs"]):
                flat = o.astype(np.float64).flatten()
                tol = 1e-4 * max(1.0, float(np.abs(flat).sum()))
                if list(o.shape) != w["shape"] or not close(flat[:len(w["head"])], w["head"]) or \
                        abs(float(flat.sum()) - w["sum"]) > tol:
                    bad.append(f"{list(o.shape)} vs {w['shape']}")
            if bad:
                why.append(f"zoo {label} at {z['at']} {z['shapes']}: outputs differ: {bad}")
            else:
                good += 1
    return good, total, why


def check_repeated_calls(so, answers, calls, tmp):
    """Three calls of a fresh copy of the library on copies of the sample inputs, against
    torch's ep.module() on a freshly loaded program: the outputs and the inputs after each
    call (a buffer's state carries over, an updated input is written back).  Returns (calls
    that match, lines that explain a difference)."""
    copy = os.path.join(tmp, "calls.so")  # its own handle: other checks' calls move the state
    shutil.copy(so, copy)
    lib = ctypes.CDLL(copy)
    samples = answers["sample_inputs"]
    good, why = 0, []
    for k, want in enumerate(calls):
        arrays = [np.asarray(s["data"], dtype=DTYPES[s["dtype"]]).reshape(s["shape"]) for s in samples]
        got = run_outputs(lib, arrays)
        if "error" in want or isinstance(got, str):
            ok = "error" in want and isinstance(got, str)
            why += [] if ok else [f"call {k + 1}: torch {want.get('error', 'runs')}, shapec {got if isinstance(got, str) else 'runs'}"]
            good += ok
            continue
        outs_ok = len(got) == len(want["outputs"]) and all(
            list(g.shape) == w["shape"] and close(g.flatten(), w["data"]) for g, w in zip(got, want["outputs"]))
        ins_ok = all(close(a.flatten(), w["data"]) for a, w in zip(arrays, want["inputs_after"]))
        if outs_ok and ins_ok:
            good += 1
        else:
            why.append(f"call {k + 1}: " + ("outputs differ" if not outs_ok else "inputs after the call differ"))
    return good, why


def check_file(shapec, root, rel, explain=None):
    """The outcome of one archive of the corpus, as a ledger word."""
    case_dir = os.path.dirname(os.path.join(root, rel))
    answers = json.load(open(os.path.join(case_dir, "answers.json")))
    with tempfile.TemporaryDirectory(prefix="shapec-corpus-") as tmp:
        archive = os.path.join(root, rel)
        if not os.path.exists(archive):  # stored thin: its weights recomputed (thin.py)
            archive = os.path.join(tmp, os.path.basename(rel))
            thin.restore(os.path.join(root, rel) + ".thin", archive)
        out = os.path.join(tmp, "out")
        r = run([shapec, "export", archive, "-o", out, "-q"])
        if r.returncode != 0:
            return f"export-fails {first_code(r.stdout + r.stderr)}"
        calls = answers.get("repeated_calls", {}).get(os.path.basename(rel))
        state_words, state_lines = [], []
        if calls:
            good, state_lines = check_repeated_calls(os.path.join(out, "model.so"), answers, calls, tmp)
            state_words = [f"calls={good}/{len(calls)}"]
            if explain is not None:
                explain.extend(f"{rel}: {line}" for line in state_lines)
        if not rel.endswith("model.pt2"):
            if "zoo_runs" not in answers or QUICK:
                return " ".join(["ok"] + state_words)  # torch's sample outputs belong to the program as exported
            good, total, zoo_lines = check_zoo_runs(shapec, archive, os.path.join(case_dir, "spec.json"), answers, tmp,
                                                    own=out)
            if explain is not None:
                explain.extend(f"{rel}: {line}" for line in zoo_lines)
            return f"ok zoo-runs={good}/{total}"
        report = json.load(open(os.path.join(out, "constraints.json")))
        why = check_numerics(shapec, os.path.join(out, "model.so"), report, answers, tmp)
        words, lines = check_contract(os.path.join(out, "model.so"), report, answers)
        words += state_words
        if "zoo_runs" in answers and not QUICK:
            good, total, zoo_lines = check_zoo_runs(shapec, archive, os.path.join(case_dir, "spec.json"), answers, tmp,
                                                    own=out)
            words.append(f"zoo-runs={good}/{total}")
            lines += zoo_lines
        if explain is not None:
            explain.extend(f"{rel}: {line}" for line in lines)
        return " ".join([why or "ok"] + words)


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    shapec, src = argv[1], argv[2]
    update = "--update" in argv[3:]
    verbose = "--explain" in argv[3:]
    timed = "--times" in argv[3:]
    only = [a for a in argv[3:] if not a.startswith("--")]
    root = os.path.join(src, "test", "real", "corpus")
    ledger_path = os.path.join(src, "test", "real", "expected.txt")
    files = sorted(os.path.relpath(os.path.join(d, f.removesuffix(".thin")), root)
                   for d, _, fs in os.walk(root) for f in fs if f.endswith((".pt2", ".pt2.thin")))
    if only:
        files = [f for f in files if any(o in f for o in only)]
    explain = []
    if not files:
        print("no corpus under", root)
        return 1
    jobs = os.cpu_count() or 2
    seconds = {}

    def check_timed(f):
        start = time.monotonic()
        outcome = check_file(shapec, root, f, explain if verbose else None)
        seconds[f] = time.monotonic() - start
        return outcome

    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        results = dict(zip(files, pool.map(check_timed, files)))
    if timed:
        for f in sorted(seconds, key=seconds.get, reverse=True)[:20]:
            print(f"{seconds[f]:7.1f} s  {f}")
        print(f"{sum(seconds.values()):7.1f} s  in all ({jobs} at a time)")
    counts = {}
    for f, outcome in results.items():
        version = f.split("/")[0]
        word = outcome.split()[0]
        counts.setdefault(version, {}).setdefault(word, 0)
        counts[version][word] += 1
    for version in sorted(counts):
        print(f"torch {version}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts[version].items())))
        agree = [tuple(map(int, w.split("=")[1].split("/"))) for f, o in results.items() if f.startswith(version + "/")
                 for w in o.split() if w.startswith("probes=") and "/" in w]
        exact = sum(1 for f, o in results.items() if f.startswith(version + "/") and "ranges=ok" in o and "shapes=ok" in o)
        print(f"torch {version}: probe verdicts equal torch's {sum(a for a, _ in agree)}/{sum(b for _, b in agree)}"
              f" ({sum(1 for a, b in agree if a == b)}/{len(agree)} programs all equal); ranges and input shapes "
              f"equal torch's in {exact} programs")
    for line in sorted(explain):
        print(line)
    lines = [f"{f}: {results[f]}" for f in files]
    if update and QUICK:
        print("--update needs the zoo runs: unset SHAPEC_CORPUS_QUICK")
        return 2
    if update:
        with open(ledger_path, "w") as fh:
            fh.write("\n".join(lines) + "\n")
        print("wrote", ledger_path)
        return 0
    if only:  # a part of the corpus: its outcomes, no ledger
        print("\n".join(lines))
        return 0
    expected = open(ledger_path).read().splitlines() if os.path.exists(ledger_path) else []
    if QUICK:  # the ledger's lines without the zoo runs this mode leaves out
        expected = [" ".join(w for w in line.split(" ") if not w.startswith(("zoo-runs=", "probes="))) for line in expected]
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
