#!/usr/bin/env python3
"""test_output_folder.py - the output folder is the user's (lib/driver/output_folder.c,
lib/driver/publish.c).

usage: test_output_folder.py SHAPEC SOURCE_DIR

Every case builds a folder of user files, runs an export that once lost them, and checks
that every user file is still there byte for byte (links as links):
- `-o .`, `-o ..`, `-o ../` from a subfolder, a folder holding the model, the spec or the
  weights: refused (exit 3, SC0102), nothing touched;
- `-o DIR/.`, `-o DIR/` and a symlinked output folder (`out -> real`, also onto another
  file system): published in the resolved folder, the link kept, the user's files kept;
- a mount point as the output folder, or inside it (root and tmpfs only): refused;
- a user file that cannot be moved (chattr +i, root only): the export fails, every file
  that was moved goes back;
- an export killed after it carried the user's files into its staging folder: the next
  export puts them back;
- an export that cannot even write its report keeps the previous failed report."""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/, for tap
import tap  # noqa: E402

checks = tap.Checks()
check = checks.check


def snapshot(folder):
    """Every file and link below folder: relative path -> bytes, or ('link', target)."""
    seen = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(root, name)
            rel = os.path.relpath(path, folder)
            if os.path.islink(path):
                seen[rel] = ("link", os.readlink(path))
            elif os.path.isfile(path):
                seen[rel] = open(path, "rb").read()
            else:
                seen[rel] = "folder"
    return seen


def kept(before, after, label):
    lost = [k for k in before if after.get(k) != before[k]]
    check(not lost, f"{label}: every user file is still there byte for byte (lost or changed: {lost[:5]})")


def export(shapec, args, cwd):
    return subprocess.run([shapec, "export", *args, "-q"], cwd=cwd, capture_output=True, text=True)


def user_folder(root, source):
    """A folder with the tutorial model, its weights and spec, and files of the user's."""
    os.makedirs(root)
    for name in ("model.json", "model.safetensors", "spec.json"):
        shutil.copy(os.path.join(source, "examples/tutorial", name), root)
    open(os.path.join(root, "notes.txt"), "w").write("the user's notes\n")
    os.makedirs(os.path.join(root, "data/more"))
    open(os.path.join(root, "data/more/table.csv"), "wb").write(bytes(range(256)))
    os.symlink("notes.txt", os.path.join(root, "notes.link"))
    return root


def refused(shapec, args, cwd, watch, label, words):
    before = snapshot(watch)
    r = export(shapec, args, cwd)
    check(r.returncode == 3 and "SC0102" in r.stderr and words in r.stderr,
          f"{label}: refused with SC0102 saying '{words}' (exit {r.returncode}: {r.stderr.strip()[-300:]})")
    kept(before, snapshot(watch), label)
    stray = [n for n in os.listdir(watch) if ".staging-" in n]
    check(not stray, f"{label}: no staging folder left ({stray})")


def published(shapec, args, cwd, folder, label):
    """An export that must succeed: the user's files in folder stay, the outputs appear."""
    before = snapshot(folder)
    r = export(shapec, args, cwd)
    check(r.returncode == 0, f"{label}: exported (exit {r.returncode}: {r.stderr.strip()[-300:]})")
    after = snapshot(folder)
    kept(before, after, label)
    check("model.so" in after and "constraints.json" in after, f"{label}: model.so and constraints.json in {folder}")


def can_mount(tmp):
    probe = os.path.join(tmp, "mount-probe")
    os.makedirs(probe)
    ok = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", probe], capture_output=True).returncode == 0
    if ok:
        subprocess.run(["umount", probe])
    return ok


def mount_cases(shapec, source, tmp):
    if not can_mount(tmp):
        print("# skipped: mount points: mounting a tmpfs is not allowed here")
        return
    work = user_folder(os.path.join(tmp, "mounts"), source)
    inner = os.path.join(work, "out", "mnt")
    os.makedirs(inner)
    open(os.path.join(work, "out", "keep.txt"), "w").write("kept\n")
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", inner], check=True)
    outer = os.path.join(work, "mounted")
    os.makedirs(outer)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", outer], check=True)
    try:
        open(os.path.join(inner, "on-the-mount.txt"), "w").write("on the mount\n")
        refused(shapec, ["model.json", "-o", "out"], work, work, "an output folder holding a mount point",
                "holds the mount point")
        open(os.path.join(outer, "mine.txt"), "w").write("mine\n")
        refused(shapec, ["model.json", "-o", "mounted"], work, work, "a mount point as the output folder",
                "mount point")
        # a link onto another file system: staged beside the resolved folder, on that file system
        os.makedirs(os.path.join(outer, "real"))
        open(os.path.join(outer, "real", "there.txt"), "w").write("there\n")
        os.symlink(os.path.join(outer, "real"), os.path.join(work, "elsewhere"))
        published(shapec, ["model.json", "-o", "elsewhere"], work, os.path.join(outer, "real"),
                  "a link to a folder on another file system")
        check(os.path.islink(os.path.join(work, "elsewhere")), "the link onto the other file system is still a link")
    finally:
        subprocess.run(["umount", inner])
        subprocess.run(["umount", outer])


def immovable_case(shapec, source, tmp):
    work = user_folder(os.path.join(tmp, "immovable"), source)
    out = os.path.join(work, "out")
    r = export(shapec, ["model.json", "-o", "out"], work)
    check(r.returncode == 0, f"the first export into out ({r.stderr.strip()[-200:]})")
    for i in range(12):
        open(os.path.join(out, f"user{i:02d}.txt"), "w").write(f"user file {i}\n")
    stuck = os.path.join(out, "user07.txt")
    if subprocess.run(["chattr", "+i", stuck], capture_output=True).returncode != 0:
        print("# skipped: a user file that cannot be moved: chattr +i is not allowed here")
        return
    try:
        before = snapshot(out)
        r = export(shapec, ["model.json", "-o", "out"], work)
        check(r.returncode == 3 and "cannot keep the file" in r.stderr,
              f"a user file that cannot be moved: the export fails saying so (exit {r.returncode}: "
              f"{r.stderr.strip()[-300:]})")
        kept(before, snapshot(out), "a user file that cannot be moved")
        stray = [n for n in os.listdir(work) if ".staging-" in n]
        check(not stray, f"a user file that cannot be moved: no staging folder left ({stray})")
    finally:
        subprocess.run(["chattr", "-i", stuck])


def killed_case(shapec, source, tmp):
    """What an export killed between carrying the user's files and the exchange leaves."""
    work = user_folder(os.path.join(tmp, "killed"), source)
    out = os.path.join(work, "out")
    r = export(shapec, ["model.json", "-o", "out"], work)
    check(r.returncode == 0, f"the first export into out ({r.stderr.strip()[-200:]})")
    dead = subprocess.Popen(["true"])
    dead.wait()  # a process id that no longer runs
    staging = os.path.join(work, f".out.staging-{dead.pid}-AbCdEf")
    os.makedirs(staging)
    shutil.copy(os.path.join(out, "model.so"), staging)
    open(os.path.join(staging, "carried.txt"), "w").write("carried before the kill\n")
    os.makedirs(os.path.join(staging, "carried-folder"))
    open(os.path.join(staging, "carried-folder", "inner.txt"), "w").write("inner\n")
    open(os.path.join(staging, ".shapec-staging"), "wb").write(b"carried.txt\0carried-folder\0half-writ")
    r = export(shapec, ["model.json", "-o", "out"], work)
    check(r.returncode == 0, f"the export after a killed one ({r.stderr.strip()[-200:]})")
    check(open(os.path.join(out, "carried.txt")).read() == "carried before the kill\n"
          and open(os.path.join(out, "carried-folder", "inner.txt")).read() == "inner\n",
          "the files a killed export had carried are back in the output folder")
    check(not os.path.exists(staging), "the killed export's staging folder is gone")
    check(not os.path.exists(os.path.join(out, ".shapec-staging")), "no manifest left in the output folder")


def report_unwritable_case(shapec, source, tmp):
    work = user_folder(os.path.join(tmp, "no-report"), source)
    os.remove(os.path.join(work, "model.safetensors"))  # an export that fails: no weights
    r = export(shapec, ["model.json", "-o", "out"], work)
    report = os.path.join(work, "out", "constraints.json")
    check(r.returncode != 0 and os.path.exists(report), "a failed export publishes its report")
    before = snapshot(os.path.join(work, "out"))
    r = export(shapec, ["model.json", "-o", "out", "--report", "/proc/no-such-folder/r.json"], work)
    check(r.returncode != 0, "an export that cannot write its report fails")
    kept(before, snapshot(os.path.join(work, "out")), "an export that cannot write its report")


def main():
    shapec, source = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    tmp = tempfile.mkdtemp(prefix="shapec-outdir-")
    try:
        work = user_folder(os.path.join(tmp, "work"), source)
        refused(shapec, ["model.json", "-o", "."], work, work, "-o .", "it is the current folder")
        refused(shapec, ["model.json", "-o", "./"], work, work, "-o ./", "it is the current folder")
        sub = os.path.join(work, "sub")
        os.makedirs(sub)
        refused(shapec, ["../model.json", "-o", ".."], sub, work, "-o .. from a subfolder", "holds the current folder")
        refused(shapec, ["model.json", "-o", "data/.."], work, work, "-o data/..", "it is the current folder")
        refused(shapec, ["work/model.json", "-o", "work"], tmp, work, "the model's own folder", "which this export reads")
        for folder, option, name in (("spec", "--dynamic", "spec.json"), ("w", "--weights", "model.safetensors")):
            os.makedirs(os.path.join(work, folder))
            shutil.copy(os.path.join(work, name), os.path.join(work, folder))
            refused(shapec, ["model.json", option, f"{folder}/{name}", "-o", folder], work, work,
                    f"a folder holding the {option} file", "which this export reads")

        out = os.path.join(work, "out")
        os.makedirs(os.path.join(out, "keep/deeper"))
        open(os.path.join(out, "mine.txt"), "w").write("mine\n")
        open(os.path.join(out, "keep/deeper/x.bin"), "wb").write(b"\0\1\2")
        published(shapec, ["model.json", "-o", "out/."], work, out, "-o out/.")
        published(shapec, ["model.json", "-o", "out//"], work, out, "-o out//")

        real = os.path.join(work, "real")
        os.makedirs(real)
        open(os.path.join(real, "real.txt"), "w").write("real\n")
        os.symlink("real", os.path.join(work, "linked"))
        published(shapec, ["model.json", "-o", "linked"], work, real, "a symlinked output folder")
        check(os.path.islink(os.path.join(work, "linked")) and os.readlink(os.path.join(work, "linked")) == "real",
              "the symlinked output folder is still the same link")
        stray = [n for n in os.listdir(work) if ".staging-" in n]
        check(not stray, f"no staging folder left beside the link or the folder ({stray})")

        os.symlink("no-such-folder", os.path.join(work, "dangling"))
        refused(shapec, ["model.json", "-o", "dangling"], work, work, "a link to nothing", "does not exist")
        check(os.path.islink(os.path.join(work, "dangling")), "the dangling link is still a link")

        mount_cases(shapec, source, tmp)
        immovable_case(shapec, source, tmp)
        killed_case(shapec, source, tmp)
        report_unwritable_case(shapec, source, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
