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
    rows = {}
    path = os.path.join(outdir, "torch.json")
    if os.path.exists(path):  # models prepared before keep their rows
        rows = json.load(open(path))["eager_ms"]
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
    with open(os.path.join(outdir, "torch.json"), "w") as f:
        json.dump({"torch": torch.__version__, "eager_ms": rows}, f, indent=1)


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
    print("| model | dtype | shapec ms | torch eager ms | shapec / torch | shapec dtype / shapec float32 |")
    print("|---|---|---|---|---|---|")
    for key, ms in rows.items():
        name, dtype = key.split("/")
        t = torch_ms["eager_ms"][key]
        base = rows[f"{name}/float32"]
        print(f"| {name} | {dtype} | {ms:.3f} | {t:.3f} | {ms / t:.2f} | {ms / base:.2f} |")


if __name__ == "__main__":
    if sys.argv[1] == "prepare":
        prepare(sys.argv[2], sys.argv[3:] or MODELS)
    else:
        time_shapec(sys.argv[2], sys.argv[3], sys.argv[4:] or MODELS)
