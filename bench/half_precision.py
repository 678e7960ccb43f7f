"""half_precision.py - shapec's float32, bfloat16 and float16 libraries beside torch 2.14
eager in the same dtypes, on the same CPU, pinned to one core (issue 60).

  scripts/real-torch.sh --torch 2.14 run bench/half_precision.py prepare OUTDIR [MODEL ...]
      (in the sid chroot) builds each model, exports it in each dtype with torch.export
      (a named batch Dim), saves OUTDIR/MODEL/DTYPE/model.pt2 and the input, and times
      torch 2.14 eager on it (torch.set_num_threads(1); the caller pins with taskset)
  /usr/bin/python3 bench/half_precision.py time OUTDIR SHAPEC [MODEL ...]
      exports each with shapec, times the library through the C ABI (one thread, pinned
      to CPU 0), prints a table of milliseconds and the ratios bf16/f32, fp16/f32

Models: `mlp` (four 1024x1024 linear layers with GELU, batch 64: products), `encoder`
(BERT, 4 layers, hidden 256, 4 heads, sequence 128, batch 4: products and attention),
`convnet` (three 3x3 convolutions with ReLU and pooling, 64 channels, 2x3x112x112),
`resnet18` (torchvision's, 2x3x224x224: batch norms and residual adds after convolutions)."""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import timeit  # noqa: E402  (the timer every bench/ script uses; before numpy: OpenBLAS)

import numpy as np  # noqa: E402

DTYPES = ("float32", "bfloat16", "float16")


def build(name):
    import torch
    torch.manual_seed(0)
    nn = torch.nn
    if name == "mlp":
        layers = []
        for _ in range(4):
            layers += [nn.Linear(1024, 1024), nn.GELU()]
        return nn.Sequential(*layers).eval(), torch.randn(64, 1024)
    if name == "encoder":
        import transformers
        cfg = transformers.BertConfig(vocab_size=1000, hidden_size=256, num_hidden_layers=4, num_attention_heads=4,
                                      intermediate_size=1024, max_position_embeddings=256)
        cfg._attn_implementation = "sdpa"

        class Encoder(nn.Module):  # the embeddings' output in, the last hidden state out
            def __init__(self):
                super().__init__()
                self.enc = transformers.BertModel(cfg).encoder

            def forward(self, x):
                return self.enc(x).last_hidden_state

        return Encoder().eval(), torch.randn(4, 128, 256)
    if name == "convnet":
        net = nn.Sequential(nn.Conv2d(3, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                            nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                            nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        return net.eval(), torch.randn(2, 3, 112, 112)
    if name == "resnet18":  # torchvision's, random weights: batch norms, residual adds, blocked layouts
        import torchvision
        return torchvision.models.resnet18().eval(), torch.randn(2, 3, 224, 224)
    raise ValueError(name)


MODELS = ("mlp", "encoder", "convnet", "resnet18")


def prepare(outdir, models):
    import torch
    from torch.export import Dim
    torch.set_num_threads(1)
    rows, peers = {}, {}
    path = os.path.join(outdir, "torch.json")
    if os.path.exists(path):  # models prepared before keep their rows
        before = json.load(open(path))
        rows, peers = before["eager_ms"], before.get("peers", {})
    for name in models:
        for dtype in DTYPES:
            module, x = build(name)
            dt = getattr(torch, dtype)
            module, x = module.to(dt), x.to(dt)
            d = os.path.join(outdir, name, dtype)
            os.makedirs(d, exist_ok=True)
            ep = torch.export.export(module, (x,), dynamic_shapes=({0: Dim("batch", max=1024)},))
            torch.export.save(ep, os.path.join(d, "model.pt2"))
            bits = x.contiguous().view(torch.int16).numpy() if dtype != "float32" else x.numpy()
            np.save(os.path.join(d, "input.npy"), bits)
            with torch.no_grad():
                ms = timeit(lambda: module(x))
            rows[f"{name}/{dtype}"] = ms
            print(f"torch {torch.__version__} eager {name} {dtype}: {ms:.3f} ms", flush=True)
            peers[f"{name}/{dtype}"] = {"aoti": time_aoti(ep, x, d), "ort": time_ort(module, x, d)}
            print(f"  AOTInductor {peers[f'{name}/{dtype}']['aoti']}, ONNX Runtime {peers[f'{name}/{dtype}']['ort']}",
                  flush=True)
    with open(path, "w") as f:
        json.dump({"torch": torch.__version__, "eager_ms": rows, "peers": peers}, f, indent=1)


def time_aoti(ep, x, d):
    """AOTInductor's library of the same ExportedProgram, in the same dtype: ms, or why not."""
    import torch
    try:
        package = torch._inductor.aoti_compile_and_package(ep, package_path=os.path.join(d, "aoti.pt2"))
        run = torch._inductor.aoti_load_package(package)
        with torch.no_grad():
            return timeit(lambda: run(x))
    except Exception as e:  # noqa: BLE001 - a peer that cannot: the row says why
        return f"fails: {type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else ''}"


def time_ort(module, x, d):
    """ONNX Runtime (CPU provider, every graph optimization, one thread) on the ONNX file
    torch's own exporter writes from the same module in the same dtype: ms, or why not."""
    import torch
    try:
        import onnxruntime as ort
    except ImportError:
        return "not installed (scripts/real-torch.sh --peers setup)"
    path = os.path.join(d, "model.onnx")
    try:
        torch.onnx.export(module, (x,), path, dynamo=False, input_names=["x"], output_names=["y"],
                          dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}}, opset_version=17)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads, opts.inter_op_num_threads = 1, 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        sess = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
        if x.dtype == torch.bfloat16:  # NumPy has no bfloat16: its bits, typed by ONNX's element type 16
            value = ort.OrtValue.ortvalue_from_numpy_with_onnx_type(x.view(torch.int16).numpy().view(np.uint16), 16)
            sess.run_with_ort_values(None, {"x": value})
            return timeit(lambda: sess.run_with_ort_values(None, {"x": value}))
        feed = {"x": x.numpy()}
        sess.run(None, feed)
        return timeit(lambda: sess.run(None, feed))
    except Exception as e:  # noqa: BLE001
        return f"fails: {type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else ''}"


def time_shapec(outdir, shapec, models):
    import ctypes
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    import shapec as package
    os.sched_setaffinity(0, {0})
    torch_ms = json.load(open(os.path.join(outdir, "torch.json")))
    rows = {}
    for name in models:
        for dtype in DTYPES:
            d = os.path.join(outdir, name, dtype)
            out = os.path.join(d, "shapec")
            subprocess.run([shapec, "export", os.path.join(d, "model.pt2"), "-o", out, "-q"], check=True)
            m = package.load(os.path.join(out, "model.so"))
            m.set_num_threads(1)
            x = np.load(os.path.join(d, "input.npy"))
            if dtype == "bfloat16":
                import torch
                x = torch.from_numpy(x).view(torch.bfloat16)
            elif dtype == "float16":
                x = x.view(np.float16)
            rows[f"{name}/{dtype}"] = timeit(lambda: m(x))
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    flags = next((l for l in open("/proc/cpuinfo") if l.startswith("flags")), "")
    isa = [f for f in ("avx512_bf16", "amx_bf16", "avx512_fp16", "f16c") if f" {f}" in flags]
    print(f"CPU: {cpu} ({', '.join(isa)}); one thread, pinned to CPU 0; torch {torch_ms['torch']} eager "
          "timed in the same session by `prepare`")
    print("| model | dtype | shapec ms | torch eager ms | AOTInductor ms | ONNX Runtime ms | shapec / fastest peer | "
          "shapec dtype / shapec float32 |")
    print("|---|---|---|---|---|---|---|---|")
    why = []
    for key, ms in rows.items():
        name, dtype = key.split("/")
        t = torch_ms["eager_ms"][key]
        peer = torch_ms.get("peers", {}).get(key, {})
        cells, times = [], [t]
        for side in ("aoti", "ort"):
            v = peer.get(side, "not timed")
            if isinstance(v, (int, float)):
                cells.append(f"{v:.3f}")
                times.append(v)
            else:
                cells.append(f"n/a [{len(why) + 1}]")
                why.append(f"[{len(why) + 1}] {'AOTInductor' if side == 'aoti' else 'ONNX Runtime'}, {name} {dtype}: {v}")
        base = rows[f"{name}/float32"]
        print(f"| {name} | {dtype} | {ms:.3f} | {t:.3f} | {cells[0]} | {cells[1]} | {ms / min(times):.2f} | "
              f"{ms / base:.2f} |")
    for line in why:
        print(line)


if __name__ == "__main__":
    if sys.argv[1] == "prepare":
        prepare(sys.argv[2], sys.argv[3:] or MODELS)
    else:
        time_shapec(sys.argv[2], sys.argv[3], sys.argv[4:] or MODELS)
