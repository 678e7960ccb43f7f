#!/usr/bin/python3
"""sweep_models.py - looks for performance cliffs outside the zoo (bench_peers.py): torchvision
models and transformer layers as users export them (torch 2.14, batch dynamic), compiled by
shapec, checked against torch 2.14's outputs and timed beside PyTorch 1.13 eager (the same
architecture with its own random weights: the time does not depend on them) on one core and
on two.  A ratio near or above 1 is worth a profile; a refusal is an operator or form shapec
does not take yet.

Two steps, the first in the torch 2.14 chroot:
    bash scripts/real-torch.sh --torch 2.14 run bench/sweep_models.py --export DIR [NAME ...]
    /usr/bin/python3 bench/sweep_models.py SHAPEC DIR [NAME ...]
DIR/NAME/ then holds model.pt2, x<i>.npy, want.npy and shapec's library in out/."""
import glob
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def models():
    """name -> (constructor, example shapes); batch 2, as a batch of 1 specializes."""
    import torch
    import torchvision
    tv, nn = torchvision.models, torch.nn

    class Layer(nn.Module):
        takes_star = True  # forward(*xs): torch.export wants its specs as one tuple

        def __init__(self, layer):
            super().__init__()
            self.layer = layer

        def forward(self, *xs):
            return self.layer(*xs)

    def encoder(**kw):
        return Layer(nn.TransformerEncoderLayer(dropout=0.0, batch_first=True, **kw))

    class MaskedEncoder(nn.Module):  # BERT-like: a key padding mask beside the tokens
        def __init__(self):
            super().__init__()
            self.stack = nn.TransformerEncoder(nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0, batch_first=True),
                                               2, enable_nested_tensor=False)

        def forward(self, x, keep):
            return self.stack(x, src_key_padding_mask=keep < 0)

    class GroupNormBlock(nn.Module):  # a diffusion UNet's residual block
        def __init__(self, c=64):
            super().__init__()
            self.n1, self.c1 = nn.GroupNorm(8, c), nn.Conv2d(c, c, 3, padding=1)
            self.n2, self.c2 = nn.GroupNorm(8, c), nn.Conv2d(c, c, 3, padding=1)

        def forward(self, x):
            h = self.c1(nn.functional.silu(self.n1(x)))
            return x + self.c2(nn.functional.silu(self.n2(h)))

    class AudioFrontEnd(nn.Module):  # wav2vec-like strided 1-D convolutions with GELU
        def __init__(self):
            super().__init__()
            self.convs = nn.ModuleList([nn.Conv1d(1, 128, 10, 5)] + [nn.Conv1d(128, 128, 3, 2) for _ in range(4)])

        def forward(self, x):
            for c in self.convs:
                x = nn.functional.gelu(c(x))
            return x

    image = [(2, 3, 224, 224)]
    return {
        "resnext50": (tv.resnext50_32x4d, image),
        "regnet_y_400mf": (tv.regnet_y_400mf, image),
        "efficientnet_b0": (tv.efficientnet_b0, image),
        "mobilenet_v3_large": (tv.mobilenet_v3_large, image),
        "shufflenet_v2": (tv.shufflenet_v2_x1_0, image),
        "convnext_tiny": (tv.convnext_tiny, image),
        "vit_b_16": (tv.vit_b_16, image),
        "swin_t": (tv.swin_t, image),
        "lraspp_mobilenet_v3": (lambda: tv.segmentation.lraspp_mobilenet_v3_large(weights_backbone=None), image),
        "encoder_small": (lambda: encoder(d_model=64, nhead=4, dim_feedforward=128), [(4, 32, 64)]),
        "encoder_prenorm_gelu": (lambda: encoder(d_model=512, nhead=8, dim_feedforward=2048, norm_first=True,
                                                 activation="gelu"), [(2, 64, 512)]),
        "decoder": (lambda: Layer(nn.TransformerDecoderLayer(256, 4, 1024, dropout=0.0, batch_first=True)),
                    [(2, 32, 256), (2, 48, 256)]),
        "gru": (lambda: Layer(nn.GRU(64, 128, batch_first=True)), [(4, 50, 64)]),
        "masked_encoder": (MaskedEncoder, [(2, 64, 256), (2, 64)]),
        "groupnorm_block": (GroupNormBlock, [(2, 64, 32, 32)]),
        "audio_frontend": (AudioFrontEnd, [(2, 1, 16000)]),
    }


def first_output(y):
    if isinstance(y, dict):
        return y["out"]
    return y[0] if isinstance(y, (tuple, list)) else y


def export_all(out, names):
    """torch 2.14: each model to OUT/NAME with its inputs and outputs."""
    import numpy as np
    import torch
    from torch.export import Dim, export, save
    for name, (make, shapes) in models().items():
        if names and name not in names:
            continue
        folder = os.path.join(out, name)
        os.makedirs(folder, exist_ok=True)
        torch.manual_seed(0)
        m = make().eval()
        xs = tuple(torch.randn(*s) for s in shapes)
        batch = Dim("batch", min=1, max=64)
        try:
            specs = tuple({0: batch} for _ in xs)
            specs = (specs,) if getattr(m, "takes_star", False) else specs
            save(export(m, xs, dynamic_shapes=specs), os.path.join(folder, "model.pt2"))
        except Exception as e:  # noqa: BLE001 - torch's own refusal
            print(f"{name}: torch.export refused: {type(e).__name__}: {str(e)[:200]}", flush=True)
            continue
        with torch.no_grad():
            want = first_output(m(*xs))
        for i, x in enumerate(xs):
            np.save(os.path.join(folder, f"x{i}.npy"), x.numpy())
        np.save(os.path.join(folder, "want.npy"), want.numpy())
        print(f"{name}: exported", flush=True)


def measure(shapec, out, name, threads):
    """In a child pinned to `threads` CPUs: one table row, or why there is none."""
    sys.path.insert(0, HERE)
    import bench_common  # sets OPENBLAS_CORETYPE before numpy and torch
    import numpy as np
    import torch
    sys.path.insert(0, os.path.join(HERE, "..", "tools"))
    from shapec_tools.model_library import ModelLibrary
    folder = os.path.join(out, name)
    lib_path = os.path.join(folder, "out", "model.so")
    if not os.path.exists(lib_path):
        t = time.perf_counter()
        r = subprocess.run([shapec, "export", os.path.join(folder, "model.pt2"), "-o", os.path.join(folder, "out"), "-q"],
                           capture_output=True, text=True)
        if r.returncode:
            first = next((ln for ln in r.stderr.splitlines() if "error" in ln), r.stderr.strip()[:200])
            return f"| {name} | refused: {first.split(': error', 1)[-1].strip()[:160]} |"
        print(f"# {name}: export {time.perf_counter() - t:.2f} s", file=sys.stderr)
    xs = [np.load(p) for p in sorted(glob.glob(os.path.join(folder, "x*.npy")))]
    want = np.load(os.path.join(folder, "want.npy"))
    torch.set_num_threads(threads)
    lib = ModelLibrary(lib_path)
    lib.set_num_threads(threads)
    run, outs = lib.prepare(xs)
    run()
    scale = float(np.abs(want).max()) or 1.0
    err = float(np.abs(outs[0] - want).max()) / scale
    make, _ = models()[name]
    torch.manual_seed(0)
    m = make().eval()
    txs = [torch.from_numpy(x) for x in xs]
    runs = 5 if want.size * xs[0].size > 1e9 or xs[0].ndim == 4 else 15
    with torch.no_grad():
        eager = bench_common.median_ms(lambda: m(*txs), runs)
        ours = bench_common.median_ms(run, runs)
    return (f"| {name} | {'x'.join(map(str, xs[0].shape))} | {threads} | {ours:.3f} | {eager:.3f} | "
            f"**{ours / eager:.2f}** | {err:.1e} |")


def main():
    if sys.argv[1:2] == ["--export"]:
        export_all(sys.argv[2], sys.argv[3:])
        return
    if sys.argv[1:2] == ["--child"]:
        print(measure(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])), flush=True)
        return
    shapec, out, names = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3:]
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")), "?")
    print(f"{cpu}; medians in ms; shapec / PyTorch 1.13 eager; error against torch 2.14 relative to the output's scale\n")
    print("| model | input | thr | shapec | 1.13 eager | ratio | error |")
    print("|---|---|---|---|---|---|---|")
    for name in sorted(os.listdir(out)):
        if (names and name not in names) or not os.path.exists(os.path.join(out, name, "model.pt2")):
            continue
        for threads, cpus in ((1, "1"), (2, "0,1")):
            r = subprocess.run(["taskset", "-c", cpus, sys.executable, os.path.abspath(__file__), "--child", shapec, out,
                                name, str(threads)], capture_output=True, text=True)
            row = r.stdout.strip().splitlines()[-1] if r.returncode == 0 and r.stdout.strip() else \
                f"| {name} | failed: {r.stderr.strip()[-200:]} |"
            print(row, flush=True)
            if "refused" in row:
                break


if __name__ == "__main__":
    main()
