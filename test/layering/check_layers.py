#!/usr/bin/env python3
"""check_layers.py - the include rules of docs/architecture.md, checked on the tree.

usage: check_layers.py SOURCE_DIR [RUNTIME_ARCHIVE]
       check_layers.py --selftest

Every project include must be root-relative ("lib/base/arena.h") or name a file in the
including file's own folder; no "../".  Each folder (a layer) may include only the layers
the table below allows.  With RUNTIME_ARCHIVE (the static runtime linked into every
model.so), also checks that no two of its files call each other in a circle.
Exit 0 when every rule holds, 1 with one line per violation."""
import os
import re
import subprocess
import sys
import tempfile

# layer -> the layers its files may include (its own is always allowed).  A layer is a
# folder; a file belongs to the longest one that contains it.  A header named with its
# path (backends/library.h) is allowed on its own, without the rest of its folder.
ALLOWED = {
    "lib/base": [],
    "ir": ["lib/base"],
    "passes": ["ir", "lib/base"],
    "lib/frontend": ["ir", "lib/base"],
    "lib/report": ["lib/frontend", "passes", "ir", "lib/base"],
    "lib/observe": ["lib/report", "lib/frontend", "passes", "ir", "lib/base"],
    "backends/llvm": ["passes", "ir", "lib/base", "include"],
    "backends/cpu": ["backends/llvm", "backends/library.h", "passes", "ir", "lib/base", "include"],
    "backends/cuda": ["backends/llvm", "backends/library.h", "passes", "ir", "lib/base", "include"],
    "backends": ["backends/llvm", "backends/cpu/cpu_target.h", "backends/cuda/cuda_target.h", "passes", "ir",
                 "lib/base", "include"],
    # the code inside a model library: the public ABI and the lowering's constants only
    "backends/cpu/runtime": ["backends/llvm/runtime_abi.h", "backends/llvm/erf_fit.h", "backends/llvm/gelu_table.h",
                             "backends/llvm/half_bits.h", "include"],
    "backends/cuda/runtime": ["backends/llvm/runtime_abi.h", "include"],
    "backends/cuda/device": ["backends/llvm/runtime_abi.h"],
    "backends/cuda/emulate": ["backends/cuda/runtime", "backends/cuda/device", "backends/llvm/runtime_abi.h",
                              "backends/llvm/half_bits.h", "include"],
    "lib/driver": ["lib/observe", "lib/report", "lib/frontend", "backends/library.h", "passes", "ir", "lib/base"],
    "cmd": ["lib/driver", "lib/observe", "lib/report", "lib/frontend", "backends/library.h", "passes", "ir", "lib/base", "include"],
    "include": [],
}
# test/, bench/, tools/ and examples/ may look inside anything.
UNCHECKED = ("test/", "bench/", "tools/", "examples/", "build")

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(path):
    best = None
    for layer in ALLOWED:
        if path.startswith(layer + "/") and (best is None or len(layer) > len(best)):
            best = layer
    return best


def resolve(root, src, inc):
    """The root-relative path an include names, or None when it names nothing."""
    if inc.startswith("shapec/"):
        target = "include/" + inc
    elif "/" in inc:
        target = inc
    else:
        target = os.path.join(os.path.dirname(src), inc)
    return target if os.path.isfile(os.path.join(root, target)) else None


def allows(layer, target):
    if target.startswith(layer + "/") and layer_of(target) == layer:
        return True
    for a in ALLOWED[layer]:
        if target == a or (target.startswith(a + "/") and layer_of(target) == a):
            return True
    return False


def source_files(root):
    """The repository's files: git's view when root is a checkout (tracked and new files,
    not what .gitignore names, such as shapec-out/ from a run of the example), else all."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
                             capture_output=True, check=True).stdout
        return [p for p in out.decode().split("\0") if p and os.path.exists(os.path.join(root, p))]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
            rel_dir = os.path.relpath(dirpath, root)
            files += [os.path.normpath(os.path.join(rel_dir, n)) for n in filenames]
        return files


def check_includes(root):
    problems = []
    for src in sorted(source_files(root)):
        if not src.endswith((".c", ".h", ".def")):
            continue
        if src.startswith(UNCHECKED):
            continue
        layer = layer_of(src)
        if layer is None:
            problems.append(f"{src}: in no layer of docs/architecture.md (add its folder to the table)")
            continue
        text = open(os.path.join(root, src), encoding="utf-8", errors="replace").read()
        for m in INCLUDE.finditer(text):
            inc = m.group(1)
            line = text.count("\n", 0, m.start()) + 1
            if ".." in inc.split("/"):
                problems.append(f'{src}:{line}: "{inc}": write includes from the repository root')
                continue
            target = resolve(root, src, inc)
            if target is None:
                problems.append(f'{src}:{line}: "{inc}" names no file (root-relative, or in {os.path.dirname(src)}/)')
            elif not allows(layer, target):
                problems.append(f'{src}:{line}: {layer}/ may not include {target} ({layer_of(target) or "?"}/)')
    return problems


def check_runtime_calls(archive):
    """No circle among the runtime archive's objects: A calls B and B calls A, or longer."""
    out = subprocess.run(["nm", "-A", archive], capture_output=True, text=True, check=True).stdout
    defined, undefined = {}, {}
    for row in out.splitlines():
        parts = row.split()
        if len(parts) < 2:
            continue
        obj = parts[0].split(":")[-2] if parts[0].count(":") >= 2 else parts[0].rstrip(":")
        kind, sym = parts[-2], parts[-1]
        if kind == "U":
            undefined.setdefault(obj, set()).add(sym)
        elif kind in "TDBRWV" and kind.isupper():
            defined[sym] = obj
    edges = {o: {defined[s] for s in syms if s in defined and defined[s] != o} for o, syms in undefined.items()}
    problems, state = [], {}

    def visit(node, stack):
        state[node] = "open"
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == "open":
                cycle = stack[stack.index(nxt):] + [nxt]
                problems.append("runtime call circle: " + " -> ".join(cycle))
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = "done"

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    return problems


def selftest():
    """The checker must catch what it claims to: a tree with one bad include of each kind."""
    with tempfile.TemporaryDirectory() as root:
        files = {
            "lib/base/arena.h": "",
            "ir/graph.h": '#include "lib/base/arena.h"\n',
            "passes/shape_env.h": "",
            "backends/llvm/lower.h": "",
            "backends/cpu/cpu_target.h": '#include "backends/llvm/lower.h"\n',
            "backends/cuda/cuda_target.h": '#include "backends/cpu/cpu_target.h"\n',  # target into target
            "lib/base/diag.h": '#include "passes/shape_env.h"\n',                      # ground into passes
            "ir/symexpr.h": '#include "../lib/base/arena.h"\n',                        # relative path
            "backends/llvm/cg_ops.c": '#include "backends/cuda/cuda_target.h"\n',     # lowering into a target
        }
        for path, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            open(os.path.join(root, path), "w").write(text)
        found = check_includes(root)
        want = ["backends/cuda/cuda_target.h", "lib/base/diag.h", "ir/symexpr.h", "backends/llvm/cg_ops.c"]
        missed = [w for w in want if not any(p.startswith(w + ":") for p in found)]
        extra = [p for p in found if not any(p.startswith(w + ":") for w in want)]
        if missed or extra:
            print("selftest failed: missed", missed, "reported wrongly", extra)
            return 1
    print("selftest: every planted violation found")
    return 0


def main(argv):
    if argv[1:] == ["--selftest"]:
        return selftest()
    if len(argv) not in (2, 3):
        print(__doc__)
        return 2
    problems = check_includes(argv[1])
    if len(argv) == 3:
        problems += check_runtime_calls(argv[2])
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} violation(s) of the layering in docs/architecture.md")
        return 1
    print("layering: every include and runtime call follows docs/architecture.md")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
