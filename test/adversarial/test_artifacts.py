#!/usr/bin/env python3
"""test_artifacts.py - an export's outputs as one unit (lib/driver/publish.c).

usage: test_artifacts.py SHAPEC SOURCE_DIR

- three exports of different models into one folder at once, 10 rounds: the report and
  the library in the folder always come from the same export;
- kill -9 at random moments of an export over a good one: the good one stays whole, no
  temporary file is left in the folder or in TMPDIR, and the next export removes the
  killed one's staging folder;
- a failed export keeps the previous library and report;
- a full disk (a 3 MB tmpfs; skipped where mounting is not allowed): the export fails
  saying "No space left on device", without a crash trace, and the previous outputs stay;
- `shapec run` on a truncated model.so and on a foreign library: a message, exit 3, no
  SIGBUS."""
import ctypes
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/, for tap
import tap  # noqa: E402

checks = tap.Checks()
check = checks.check


def export(shapec, model, out, env=None, extra=()):
    return subprocess.run([shapec, "export", model, "-o", out, "-q", *extra], capture_output=True, text=True, env=env)


def unit_of(out):
    """The model named by the folder's report and by the report its library embeds."""
    report = json.load(open(os.path.join(out, "constraints.json")))["model"]
    lib = ctypes.CDLL(os.path.join(out, "model.so"))
    lib.shapec_model_report.restype = ctypes.c_char_p
    embedded = json.loads(lib.shapec_model_report().decode())["model"]
    return report, embedded


def unit_in_child(out):
    """unit_of in a fresh process (a library's name is loaded once per process)."""
    code = ("import ctypes, json, sys; o = sys.argv[1]; r = json.load(open(o + '/constraints.json'))['model'];"
            "l = ctypes.CDLL(o + '/model.so'); l.shapec_model_report.restype = ctypes.c_char_p;"
            "print(json.dumps([r, json.loads(l.shapec_model_report().decode())['model']]))")
    r = subprocess.run([sys.executable, "-c", code, out], capture_output=True, text=True)
    return json.loads(r.stdout) if r.returncode == 0 else None


def concurrent_exports(shapec, models, tmp):
    out = os.path.join(tmp, "shared-out")
    mixed = 0
    for _ in range(10):
        procs = [subprocess.Popen([shapec, "export", m, "-o", out, "-q"], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL) for m in models]
        codes = [p.wait() for p in procs]
        unit = unit_in_child(out)
        if any(codes) or not unit or unit[0] != unit[1]:
            mixed += 1
    check(mixed == 0, f"3 concurrent exports into one folder, 10 rounds: the report and the library always match "
                      f"({mixed} rounds mixed or failed)")
    leftovers = [f for f in os.listdir(tmp) if ".staging-" in f]
    check(not leftovers, f"no staging folder left after the concurrent rounds ({leftovers})")


def killed_exports(shapec, good_model, slow_model, tmp):
    out = os.path.join(tmp, "killed-out")
    private_tmp = os.path.join(tmp, "private-tmpdir")
    os.makedirs(private_tmp)
    env = dict(os.environ, TMPDIR=private_tmp)
    r = export(shapec, good_model, out, env)
    check(r.returncode == 0, f"the good export ({r.stderr.strip()[:200]})")
    before = open(os.path.join(out, "model.so"), "rb").read()
    rng = random.Random(7)
    broken = 0
    for i in range(8):
        p = subprocess.Popen([shapec, "export", slow_model, "-o", out, "-q"], env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.05, 1.5))
        p.send_signal(signal.SIGKILL)
        p.wait()
        files = os.listdir(out)
        unit = unit_in_child(out)
        if any(".tmp." in f or f.startswith(".build") for f in files) or not unit or unit[0] != unit[1]:
            broken += 1
        if unit and unit[0] == good_model and open(os.path.join(out, "model.so"), "rb").read() != before:
            broken += 1
    check(broken == 0, f"kill -9 at 8 random moments: the folder always holds one whole export, no temporary "
                       f"files ({broken} broken)")
    check(not os.listdir(private_tmp), f"nothing left in TMPDIR ({os.listdir(private_tmp)[:5]})")
    r = export(shapec, good_model, out, env)
    left = [f for f in os.listdir(tmp) if f.startswith(".killed-out.staging-")]
    check(r.returncode == 0 and not left, f"the next export removes what the killed ones left ({left})")


def failed_export_keeps(shapec, good_model, src, tmp):
    out = os.path.join(tmp, "keep-out")
    export(shapec, good_model, out)
    before = open(os.path.join(out, "model.so"), "rb").read()
    bad = os.path.join(tmp, "bad-spec.json")
    with open(bad, "w") as f:
        json.dump({"dynamic_shapes": {"nope": [None]}}, f)
    r = export(shapec, good_model, out, extra=["--dynamic", bad])
    kept = open(os.path.join(out, "model.so"), "rb").read() == before
    check(r.returncode != 0 and kept and json.load(open(os.path.join(out, "constraints.json")))["status"] == "ok",
          f"a failed export keeps the earlier library and report (exit {r.returncode})")


def full_disk(shapec, good_model, tmp):
    mnt = os.path.join(tmp, "small-disk")
    os.makedirs(mnt)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", mnt], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"skip - full disk: cannot mount a small tmpfs here ({r.stderr.strip()[:100]})")
        return
    try:
        out = os.path.join(mnt, "out")
        r = export(shapec, good_model, out)
        check(r.returncode == 0, f"an export onto the small disk ({r.stderr.strip()[:200]})")
        before = open(os.path.join(out, "model.so"), "rb").read()
        st = os.statvfs(mnt)
        filler = os.path.join(mnt, "filler")
        with open(filler, "wb") as f:  # leave about 40 KB
            try:
                f.write(b"\0" * max(0, st.f_bavail * st.f_frsize - 40 * 1024))
            except OSError:
                pass
        r = export(shapec, good_model, out)
        msg = r.stderr
        check(r.returncode != 0 and "No space left on device" in msg and "Stack dump" not in msg and
              "PLEASE submit" not in msg, f"a full disk is said plainly (exit {r.returncode}: {msg.strip()[:240]})")
        check(open(os.path.join(out, "model.so"), "rb").read() == before and
              json.load(open(os.path.join(out, "constraints.json")))["status"] == "ok",
              "on a full disk the previous outputs stay")
        check(not [f for f in os.listdir(mnt) if ".staging-" in f], "no staging folder left on the full disk")
    finally:
        subprocess.run(["umount", mnt])


def bad_libraries(shapec, good_out, src, tmp):
    so = os.path.join(good_out, "model.so")
    data = open(so, "rb").read()
    x = os.path.join(src, "examples", "tutorial", "inputs", "x.npy")
    for cut in (64, len(data) // 2, len(data) - 100, len(data) - 1):
        trunc = os.path.join(tmp, f"trunc-{cut}.so")
        with open(trunc, "wb") as f:
            f.write(data[:cut])
        r = subprocess.run([shapec, "run", trunc, "--input", f"x={x}", "--out", os.path.join(tmp, "o")],
                           capture_output=True, text=True)
        check(r.returncode == 3 and "truncated or damaged" in r.stderr and r.returncode != -signal.SIGBUS,
              f"shapec run on model.so cut to {cut} bytes: refused with a message (exit {r.returncode}: "
              f"{r.stderr.strip()[:120]})")
    libm = "/lib/x86_64-linux-gnu/libm.so.6"
    r = subprocess.run([shapec, "run", libm, "--input", f"x={x}"], capture_output=True, text=True)
    check(r.returncode == 3 and "not a shapec model library" in r.stderr, f"a foreign library is named as such "
                                                                            f"({r.stderr.strip()[:120]})")


def main(argv):
    shapec, src = argv[1], argv[2]
    tut = os.path.join(src, "examples", "tutorial", "model.json")
    corpus = os.path.join(src, "test", "real", "corpus", "2.14")
    models = [tut, os.path.join(corpus, "zoo_mlp", "model.pt2"), os.path.join(corpus, "zoo_small_cnn", "model.pt2")]
    with tempfile.TemporaryDirectory(prefix="shapec-artifacts-") as tmp:
        concurrent_exports(shapec, models, tmp)
        killed_exports(shapec, tut, os.path.join(corpus, "zoo_transformer_encoder", "model.pt2"), tmp)
        failed_export_keeps(shapec, tut, src, tmp)
        full_disk(shapec, tut, tmp)
        bad_libraries(shapec, os.path.join(tmp, "keep-out"), src, tmp)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
