"""peers_214.py - PyTorch 2.14's side of bench/bench_peers.py, run in the sid chroot
(scripts/real-torch.sh --torch 2.14 --aoti run bench/peers_214.py ...).

  prepare OUTDIR MODEL...   exports each zoo model once with torch.export (a dynamic batch,
                            and dynamic height/width or sequence), saves OUTDIR/MODEL/model.pt2
                            (what shapec compiles) and spec.json, compiles it with AOTInductor
                            (OUTDIR/MODEL/aoti.pt2, its compile time in prepare.json), writes the
                            timed inputs as .npy and torch's outputs for them, and the FLOPs of
                            each row (torch.utils.flop_counter)
                            and writes the ONNX file torch's own exporter makes of the same
                            module (OUTDIR/MODEL/model.onnx; dynamo=False, as onnxscript is not
                            packaged; the dynamic dims named)
  time OUTDIR THREADS MODEL...
                            prints one JSON line per row: medians of eager, AOTInductor and
                            ONNX Runtime (CPU provider, every graph optimization, intra-op
                            threads = THREADS; a row it cannot run gives the reason instead)

The caller pins the process (taskset); THREADS goes to torch.set_num_threads."""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import timeit  # noqa: E402  (the same timer and OpenBLAS kernels as the other side)

import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch.export import Dim  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from shapec_tools import zoo  # noqa: E402

# model: sample shape, dims of x (None static, "batch" the named batch Dim, "auto" AUTO), shapes timed
ROWS = {
    "mlp": ([8, 784], ["batch", None], [[1, 784], [8, 784]]),
    "resnet18": ([2, 3, 64, 64], ["batch", None, "auto", "auto"], [[1, 3, 224, 224], [8, 3, 224, 224]]),
    "mobilenet_v2": ([2, 3, 64, 64], ["batch", None, "auto", "auto"], [[1, 3, 224, 224], [8, 3, 224, 224]]),
    "encoder": ([2, 16, 256], ["batch", "auto", None], [[1, 128, 256], [8, 128, 256]]),
    # Hugging Face text models at their published sizes (random weights: no hub), token ids
    # in, the last hidden state out; torch 1.13 has no transformers here: no 1.13 columns
    "gpt2": ([2, 16], ["batch", "auto"], [[1, 128], [8, 128], [1, 512]]),
    "bert": ([2, 16], ["batch", "auto"], [[1, 128], [8, 128], [1, 512]]),
    # torchvision's models (random weights); ViT and Swin at the 224x224 they were built for
    "resnet50": ([2, 3, 64, 64], ["batch", None, "auto", "auto"], [[1, 3, 224, 224], [8, 3, 224, 224]]),
    "efficientnet_b0": ([2, 3, 64, 64], ["batch", None, "auto", "auto"], [[1, 3, 224, 224], [8, 3, 224, 224]]),
    "mobilenet_v3_large": ([2, 3, 64, 64], ["batch", None, "auto", "auto"], [[1, 3, 224, 224], [8, 3, 224, 224]]),
    "convnext_tiny": ([2, 3, 64, 64], ["batch", None, "auto", "auto"], [[1, 3, 224, 224], [8, 3, 224, 224]]),
    "vit_b_16": ([2, 3, 224, 224], ["batch", None, None, None], [[1, 3, 224, 224], [8, 3, 224, 224]]),
    "swin_t": ([2, 3, 224, 224], ["batch", None, None, None], [[1, 3, 224, 224], [8, 3, 224, 224]]),
    # Whisper-tiny's encoder (80 mel bins, the 3000 frames it requires) and a Llama-shaped
    # decoder's prefill (8 layers, hidden 768, 12 heads, SwiGLU 2048, vocabulary 32000)
    "whisper_encoder": ([2, 80, 3000], ["batch", None, None], [[1, 80, 3000], [8, 80, 3000]]),
    "llama": ([2, 16], ["batch", "auto"], [[1, 128], [8, 128], [1, 512]]),
}
TEXT = ("gpt2", "bert", "llama")  # token ids in
ZOO_113 = ("mlp", "resnet18", "mobilenet_v2", "encoder")  # rows torch 1.13 here can build too
TORCHVISION = ("resnet50", "efficientnet_b0", "mobilenet_v3_large", "convnext_tiny", "vit_b_16", "swin_t")


class LastHidden(torch.nn.Module):
    def __init__(self, model, keyword="input_ids"):
        super().__init__()
        self.model, self.keyword = model, keyword

    def forward(self, x):
        return self.model(**{self.keyword: x}).last_hidden_state


def build(name):
    """The module of a row (zoo.build's for the zoo's) and a function of a shape that makes
    its timed input."""
    torch.manual_seed(0)
    if name in TORCHVISION:
        import torchvision
        return getattr(torchvision.models, name)().eval(), lambda shape: torch.randn(*shape)
    if name not in TEXT and name != "whisper_encoder":
        return zoo.build(name)[0], lambda shape: torch.randn(*shape)
    import transformers
    if name == "whisper_encoder":  # whisper-tiny's published sizes
        config = transformers.WhisperConfig(d_model=384, encoder_layers=4, encoder_attention_heads=6,
                                            encoder_ffn_dim=1536, decoder_layers=4, decoder_attention_heads=6,
                                            decoder_ffn_dim=1536, num_mel_bins=80)
        config._attn_implementation = "sdpa"
        model = transformers.WhisperModel(config).get_encoder().eval()
        return LastHidden(model, "input_features").eval(), lambda shape: torch.randn(*shape)
    if name == "llama":
        config = transformers.LlamaConfig(num_hidden_layers=8, hidden_size=768, num_attention_heads=12,
                                          num_key_value_heads=12, intermediate_size=2048, vocab_size=32000,
                                          max_position_embeddings=2048)
        model_class = transformers.LlamaModel
    else:
        config = transformers.GPT2Config() if name == "gpt2" else transformers.BertConfig()  # GPT-2 small, BERT-base
        model_class = transformers.GPT2Model if name == "gpt2" else transformers.BertModel
    config._attn_implementation = "sdpa"
    model = model_class(config).eval()
    return LastHidden(model).eval(), lambda shape: torch.randint(0, config.vocab_size, tuple(shape))


def shape_name(shape):
    return "x".join(map(str, shape))


def prepare(out, models):
    info = {}
    for name in models:
        sample, dims, shapes = ROWS[name]
        module, make_input = build(name)
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        batch = Dim("batch", min=1, max=4096)
        ds = ({k: batch if v == "batch" else Dim.AUTO for k, v in enumerate(dims) if v},)  # positional: names differ
        torch.manual_seed(0)
        x = make_input(sample)
        with torch.no_grad():
            t0 = time.perf_counter()
            ep = torch.export.export(module, (x,), dynamic_shapes=ds)
            export_s = time.perf_counter() - t0
        torch.export.save(ep, os.path.join(d, "model.pt2"))
        leaves = ["batch" if v == "batch" else "_DimHint.AUTO" if v else None for v in dims]
        with open(os.path.join(d, "spec.json"), "w") as f:
            json.dump({"dynamic_shapes": [leaves], "dims": {"batch": {"min": 1, "max": 4096}}}, f)
        t0 = time.perf_counter()
        torch._inductor.aoti_compile_and_package(ep, package_path=os.path.join(d, "aoti.pt2"))
        aoti_s = time.perf_counter() - t0
        onnx_error = export_onnx(module, x, dims, os.path.join(d, "model.onnx"))
        flops = {}
        for shape in shapes:
            torch.manual_seed(1)
            xi = make_input(shape)
            np.save(os.path.join(d, f"x_{shape_name(shape)}.npy"), xi.numpy())
            with torch.no_grad():
                np.save(os.path.join(d, f"want_{shape_name(shape)}.npy"), module(xi).numpy())
                # the composite attention of nn.MultiheadAttention (ViT's): its inference fast
                # path is one op the counter does not know, and would count as no FLOPs
                counter = torch.utils.flop_counter.FlopCounterMode(display=False)
                fastpath = torch.backends.mha.get_fastpath_enabled()
                torch.backends.mha.set_fastpath_enabled(False)
                with counter:
                    module(xi)
                torch.backends.mha.set_fastpath_enabled(fastpath)
            flops[shape_name(shape)] = counter.get_total_flops()
        state = module.state_dict()
        if name in ZOO_113:  # for torch 1.13's side
            np.savez(os.path.join(d, "state.npz"), **{k: v.numpy() for k, v in state.items()})
        weight_bytes = sum(p.numel() * p.element_size() for p in state.values())
        info[name] = {"export_s": export_s, "aoti_compile_s": aoti_s, "flops": flops, "weight_bytes": weight_bytes,
                      "onnx_error": onnx_error}
        print(f"# {name}: torch.export {export_s:.1f} s, AOTInductor compile {aoti_s:.1f} s", flush=True)
    path = os.path.join(out, "prepare.json")
    if os.path.exists(path):  # models prepared before in OUTDIR stay listed
        with open(path) as f:
            info = {**json.load(f)["models"], **info}
    with open(path, "w") as f:
        json.dump({"torch": torch.__version__, "models": info}, f, indent=1)


def export_onnx(module, x, dims, path):
    """The module as ONNX Runtime users get it: None, or why torch could not export it."""
    names = {0: "batch", 1: "d1", 2: "d2", 3: "d3"}
    axes = {k: names[k] for k, v in enumerate(dims) if v}
    # nn.MultiheadAttention's inference fast path (ViT's) is one fused op ONNX has no
    # counterpart for: the exporter gets the composite ops, as under autograd
    fastpath = torch.backends.mha.get_fastpath_enabled()
    torch.backends.mha.set_fastpath_enabled(False)
    try:
        with torch.no_grad():
            torch.onnx.export(module, (x,), path, dynamo=False, input_names=["x"], output_names=["y"],
                              dynamic_axes={"x": axes, "y": {0: "batch"}}, opset_version=17)
        return None
    except Exception as e:  # noqa: BLE001 - the row says why
        return f"{type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"
    finally:
        torch.backends.mha.set_fastpath_enabled(fastpath)


def ort_session(path, threads):
    """ONNX Runtime's CPU session as the people who deploy it configure it, or why not."""
    try:
        import onnxruntime as ort
    except ImportError:
        return None, "onnxruntime is not installed (scripts/real-torch.sh --peers setup)"
    if not os.path.exists(path):
        return None, "no ONNX file"
    opts = ort.SessionOptions()
    opts.intra_op_num_threads, opts.inter_op_num_threads = threads, 1
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    try:
        return ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"]), None
    except Exception as e:  # noqa: BLE001
        return None, f"{type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"


def time_rows(out, threads, models):
    torch.set_num_threads(threads)
    for name in models:
        _, _, shapes = ROWS[name]
        module, _ = build(name)
        d = os.path.join(out, name)
        aoti = torch._inductor.aoti_load_package(os.path.join(d, "aoti.pt2"))
        sess, ort_why = ort_session(os.path.join(d, "model.onnx"), threads)
        for shape in shapes:
            x = torch.from_numpy(np.load(os.path.join(d, f"x_{shape_name(shape)}.npy")))
            with torch.no_grad():
                eager = timeit(lambda: module(x), budget=1.0, min_runs=5)
                compiled = timeit(lambda: aoti(x), budget=1.0, min_runs=5)
                want = np.load(os.path.join(d, f"want_{shape_name(shape)}.npy"))
                got = aoti(x)
                got = (got[0] if isinstance(got, (list, tuple)) else got).numpy()
            err = float(np.abs(got - want).max() / max(1.0, np.abs(want).max()))
            row = {"model": name, "shape": shape, "threads": threads, "eager214": eager, "aoti": compiled, "aoti_err": err}
            if sess is not None:
                feed = {"x": x.numpy()}
                try:
                    y = sess.run(None, feed)[0]
                    row["ort"] = timeit(lambda: sess.run(None, feed), budget=1.0, min_runs=5)
                    row["ort_err"] = float(np.abs(y - want).max() / max(1.0, np.abs(want).max()))
                except Exception as e:  # noqa: BLE001
                    row["ort_why"] = f"{type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"
            else:
                row["ort_why"] = ort_why
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "prepare":
        prepare(sys.argv[2], sys.argv[3:])
    else:
        time_rows(sys.argv[2], int(sys.argv[3]), sys.argv[4:])
