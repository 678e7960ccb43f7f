#!/usr/bin/python3
"""bench_peers.py - shapec beside every peer in one run: ONNX Runtime 1.23, PyTorch 2.14.1
eager and AOTInductor (in the sid chroot), PyTorch 1.13 eager and TorchScript (traced,
frozen), on the same models and weights.  Each model is exported once by torch 2.14 (with a dynamic
batch, and dynamic height/width or sequence); shapec compiles that very .pt2 and
AOTInductor compiles the same ExportedProgram.  Batch 1 and 8, 1 and 2 threads pinned
with taskset (CPU 0, CPUs 0-1), in ROUNDS rounds that alternate the two sides; each cell
is the median of its rounds.  Per row: the physical limit, max(FLOPs / FMA peak (build/fma_peak),
weights and activations' bytes / copy bandwidth), both measured in the same run.

With --isa avx2 every side is held to AVX2 and FMA, as on a CPU without AVX-512 (AMD's
before Zen 4): shapec compiles with --cpu haswell, OpenBLAS runs its Haswell kernels, oneDNN
(shapec's and PyTorch's) stops at AVX2 (DNNL_MAX_CPU_ISA, ONEDNN_MAX_CPU_ISA), ATen and
AOTInductor's generated code at AVX2 (ATEN_CPU_CAPABILITY; prepare there, without --reuse,
so that AOTInductor compiles under it); the table goes between the "bench_peers avx2"
markers.

usage: bench/bench_peers.py SHAPEC [--rounds N] [--only=mlp,...] [--out DIR] [--reuse] [--write-docs] [--isa avx2]
(Debian's /usr/bin/python3; needs scripts/real-torch.sh --torch 2.14 --peers setup)"""
import json
import os
import re
import statistics
import subprocess
import sys
import time

# an ISA cap reaches every process started from here, the chroot's included
ISA = sys.argv[sys.argv.index("--isa") + 1] if "--isa" in sys.argv else None
if ISA == "avx2":
    os.environ.update(OPENBLAS_CORETYPE="Haswell", DNNL_MAX_CPU_ISA="AVX2", ONEDNN_MAX_CPU_ISA="AVX2",
                      ATEN_CPU_CAPABILITY="avx2")
elif ISA:
    sys.exit(f"bench_peers: --isa {ISA}: only avx2 is known")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import timeit  # noqa: E402  (sets OPENBLAS_CORETYPE first)

import numpy as np  # noqa: E402
import torch  # noqa: E402

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(SRC, "tools"))
from shapec_tools import zoo  # noqa: E402
from shapec_tools.model_library import ModelLibrary  # noqa: E402

MODELS = ["mlp", "resnet18", "mobilenet_v2", "encoder", "gpt2", "bert", "resnet50", "efficientnet_b0",
          "mobilenet_v3_large", "convnext_tiny", "vit_b_16", "swin_t", "whisper_encoder", "llama"]
SHAPES = {"mlp": [[1, 784], [8, 784]], "resnet18": [[1, 3, 224, 224], [8, 3, 224, 224]],
          "mobilenet_v2": [[1, 3, 224, 224], [8, 3, 224, 224]], "encoder": [[1, 128, 256], [8, 128, 256]],
          "gpt2": [[1, 128], [8, 128], [1, 512]], "bert": [[1, 128], [8, 128], [1, 512]],
          "llama": [[1, 128], [8, 128], [1, 512]], "whisper_encoder": [[1, 80, 3000], [8, 80, 3000]],
          **{m: [[1, 3, 224, 224], [8, 3, 224, 224]] for m in ("resnet50", "efficientnet_b0", "mobilenet_v3_large",
                                                               "convnext_tiny", "vit_b_16", "swin_t")}}
# rows torch 1.13 here builds too (zoo.build); the others (Hugging Face's, torchvision's newer
# models) come from peers_214.py alone and have no 1.13 columns
ZOO_113 = ("mlp", "resnet18", "mobilenet_v2", "encoder")


def arg(name, default=None):
    for a in sys.argv:
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    if name in sys.argv:
        return sys.argv[sys.argv.index(name) + 1]
    return default


def shape_name(shape):
    return "x".join(map(str, shape))


def cpu_model():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "?"


def shapec_path():
    return os.path.abspath(sys.argv[1])


def peaks():
    """One core's sgemm GFLOP/s (OpenBLAS through torch 1.13, 1024^3, one thread on CPU 0) and
    its copy bandwidth in GB/s (256 MB, read and written)."""
    code = ("import sys; sys.path.insert(0, %r)\n"
            "from bench_common import timeit\n"
            "import numpy as np, torch\n"
            "torch.set_num_threads(1)\n"
            "a, b = torch.randn(1024, 1024), torch.randn(1024, 1024)\n"
            "t = timeit(lambda: a @ b, budget=1.0) / 1e3\n"
            "src = np.ones(64 << 20, np.float32); dst = np.empty_like(src)\n"
            "u = timeit(lambda: np.copyto(dst, src), budget=1.0) / 1e3\n"
            "print(2 * 1024 ** 3 / t / 1e9, 2 * src.nbytes / u / 1e9)\n") % os.path.dirname(os.path.abspath(__file__))
    r = subprocess.run(["taskset", "-c", "0", "env", "OPENBLAS_NUM_THREADS=1", "OMP_NUM_THREADS=1", sys.executable, "-c",
                        code], capture_output=True, text=True, check=True)
    gflops, gbs = map(float, r.stdout.split())
    # the FMA units' own ceiling in the widest lanes allowed (build/fma_peak): what no float32
    # product can pass, where OpenBLAS's Haswell sgemm above can be passed by AVX-512 kernels
    fma = subprocess.run(["taskset", "-c", "0", os.path.join(os.path.dirname(shapec_path()), "fma_peak")],
                         capture_output=True, text=True, check=True).stdout
    found = dict(re.findall(r"^(AVX2|AVX-512) FMA peak on one core: ([0-9.]+)", fma, re.M))
    peak = float(found["AVX2"] if ISA == "avx2" or "AVX-512" not in found else found["AVX-512"])
    return gflops, gbs, peak


def chroot(*args, cpus=None):
    cmd = ([ "taskset", "-c", cpus] if cpus else []) + [os.path.join(SRC, "scripts", "real-torch.sh"), "--torch", "2.14",
                                                       "--peers", "run", "bench/peers_214.py", *args]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=SRC)
    if r.returncode:
        sys.exit(f"bench_peers: {' '.join(args[:1])} in the chroot failed:\n{r.stderr[-3000:]}")
    return r.stdout


def host_side(shapec, out, threads, models):
    """This machine's side of one round, in a process that taskset pinned: shapec's library,
    1.13 eager and TorchScript; one JSON line per row, as peers_214.py's `time` prints."""
    torch.set_num_threads(threads)
    for m in models:
        d = os.path.join(out, m)
        lib = ModelLibrary(os.path.join(d, "shapec", "model.so"))
        lib.set_num_threads(threads)
        module = None
        if m in ZOO_113:
            module, _, _, _ = zoo.build(m)  # torch 1.13's module, with torch 2.14's weights
            state = np.load(os.path.join(d, "state.npz"))
            module.load_state_dict({k: torch.from_numpy(state[k]) for k in state.files})
            module.eval()
        for shape in SHAPES[m]:
            x = torch.from_numpy(np.load(os.path.join(d, f"x_{shape_name(shape)}.npy")))
            run, outs = lib.prepare([x.numpy()])
            with torch.no_grad():
                row = {"model": m, "shape": shape, "threads": threads, "shapec": timeit(run, budget=1.0, min_runs=5)}
                if module is not None:
                    script = torch.jit.freeze(torch.jit.trace(module, (x,)))
                    for peer, fn in (("eager113", lambda: module(x)), ("script113", lambda: script(x))):
                        row[peer] = timeit(fn, budget=1.0, min_runs=5)
            want = np.load(os.path.join(d, f"want_{shape_name(shape)}.npy"))
            row["shapec_err"] = float(np.abs(outs[0] - want).max() / max(1.0, np.abs(want).max()))
            print(json.dumps(row), flush=True)


def host(shapec, out, threads, models, cpus):
    r = subprocess.run(["taskset", "-c", cpus, sys.executable, os.path.abspath(__file__), shapec, "--host-side", out,
                        str(threads), *models], capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"bench_peers: the host side failed:\n{r.stderr[-3000:]}")
    return r.stdout


def main():
    shapec = os.path.abspath(sys.argv[1])
    if sys.argv[2:3] == ["--host-side"]:
        return host_side(shapec, sys.argv[3], int(sys.argv[4]), sys.argv[5:])
    rounds = int(arg("--rounds", "3"))
    models = arg("--only", ",".join(MODELS)).split(",")
    out = arg("--out", "/tmp/shapec-bench")
    os.makedirs(out, exist_ok=True)
    if not ("--reuse" in sys.argv and os.path.exists(os.path.join(out, "prepare.json"))):
        print(chroot("prepare", out, *models), end="", flush=True)
    prep = json.load(open(os.path.join(out, "prepare.json")))
    export_s = {}
    for m in models:
        d = os.path.join(out, m)
        t0 = time.perf_counter()
        subprocess.run([shapec, "export", os.path.join(d, "model.pt2"), "--dynamic", os.path.join(d, "spec.json"),
                        "-o", os.path.join(d, "shapec"), "-q"] + (["--cpu", "haswell"] if ISA == "avx2" else []),
                       check=True, capture_output=True)
        export_s[m] = time.perf_counter() - t0
    gflops, gbs, fma = peaks()
    cells = {}  # (model, shape, threads) -> {peer: [ms per round]}
    errs = {}
    ort_why = {}  # model -> why ONNX Runtime did not run it
    for r in range(rounds):
        for threads, cpus in ((1, "0"), (2, "0,1")):
            rows = chroot("time", out, str(threads), *models, cpus=cpus) + host(shapec, out, threads, models, cpus)
            for line in rows.splitlines():
                row = json.loads(line)
                key = (row["model"], shape_name(row["shape"]), threads)
                for peer in ("eager214", "aoti", "ort", "shapec", "eager113", "script113"):
                    if peer in row:
                        cells.setdefault(key, {}).setdefault(peer, []).append(row[peer])
                for side in ("aoti", "ort", "shapec"):
                    if side + "_err" in row:
                        errs[(side,) + key[:2]] = row[side + "_err"]
                if "ort_why" in row:
                    ort_why[key[0]] = row["ort_why"]
    lines = [f"Measured {time.strftime('%Y-%m-%d')}, {cpu_model()}, {os.cpu_count()} CPUs, `taskset` CPU 0 (1 thread) and "
             f"CPUs 0-1 (2 threads), {rounds} rounds alternating the chroot's peers and this process's; medians of the rounds in ms. "
             f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE')}. "
             + (f"Held to AVX2 (--isa avx2): shapec --cpu haswell, DNNL_MAX_CPU_ISA=ONEDNN_MAX_CPU_ISA=AVX2, "
                f"ATEN_CPU_CAPABILITY=avx2. " if ISA else "")
             + f"Peaks measured in the same run: OpenBLAS sgemm {gflops:.0f} GFLOP/s on one core, FMA units "
             f"{fma:.0f} GFLOP/s ({'AVX2' if ISA == 'avx2' else 'widest'} lanes, build/fma_peak), copy {gbs:.1f} GB/s; "
             f"limit = max(FLOPs / FMA peak, weight and input bytes / copy bandwidth).",
             "",
             "| model | input | thr | shapec | ORT 1.23 | 2.14 eager | AOTInductor | 1.13 eager | TorchScript | fastest peer | shapec / fastest | shapec / ORT | limit | shapec / limit |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for m in models:
        for shape in SHAPES[m]:
            for threads in (1, 2):
                c = {k: statistics.median(v) for k, v in cells[(m, shape_name(shape), threads)].items()}
                peers = {"2.14 eager": c["eager214"], "AOTInductor": c["aoti"]}
                for label, key in (("1.13 eager", "eager113"), ("TorchScript", "script113"), ("ORT", "ort")):
                    if key in c:
                        peers[label] = c[key]
                best = min(peers, key=peers.get)
                info = prep["models"][m]
                flops = info["flops"][shape_name(shape)]
                act = 4 * (np.prod(shape) + 0)  # the input; weights dominate the bytes of these rows
                limit = max(flops / (fma * 1e9 * threads), (info["weight_bytes"] + act) / (gbs * 1e9)) * 1e3
                ort = f"{c['ort']:.3f}" if "ort" in c else "n/a"
                vs_ort = f"{c['shapec'] / c['ort']:.2f}" if "ort" in c else "n/a"
                old = " | ".join(f"{c[k]:.3f}" if k in c else "n/a" for k in ("eager113", "script113"))
                lines.append(f"| {m} | {shape} | {threads} | {c['shapec']:.3f} | {ort} | {c['eager214']:.3f} | {c['aoti']:.3f} | "
                             f"{old} | {best} | **{c['shapec'] / peers[best]:.2f}** | "
                             f"{vs_ort} | {limit:.3f} | {c['shapec'] / limit:.1f} |")
    lines.append("")
    lines.append("Compile times: " + "; ".join(
        f"{m} shapec {export_s[m]:.2f} s, AOTInductor {prep['models'][m]['aoti_compile_s']:.1f} s" for m in models) + ".")
    def largest(side, m):
        v = [e for k, e in errs.items() if k[0] == side and k[1] == m]
        return f"{max(v):.1e}" if v else "n/a"
    lines.append("Largest error against torch 2.14 eager (relative to the output's scale): " + "; ".join(
        f"{m} shapec {largest('shapec', m)}, AOTInductor {largest('aoti', m)}, ORT {largest('ort', m)}" for m in models) + ".")
    lines.append("ONNX Runtime 1.23 (Debian sid's python3-onnxruntime; CPUExecutionProvider, ORT_ENABLE_ALL, "
                 "intra_op_num_threads = the row's threads) on the ONNX file torch 2.14's exporter wrote from the same "
                 "module (`torch.onnx.export(..., dynamo=False)`, opset 17)." +
                 "".join(f" {m}: ORT did not run: {why}." for m, why in ort_why.items()))
    table = "\n".join(lines)
    print(table)
    if "--write-docs" in sys.argv:
        path = os.path.join(SRC, "docs", "benchmarks.md")
        doc = open(path).read()
        tag = f"bench_peers {ISA}" if ISA else "bench_peers"
        begin, end = f"<!-- {tag} begin -->", f"<!-- {tag} end -->"
        new = f"{begin}\n{table}\n{end}"
        doc = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: new, doc, flags=re.S) if begin in doc else doc + "\n" + new + "\n"
        open(path, "w").write(doc)


if __name__ == "__main__":
    main()
