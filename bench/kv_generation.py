"""kv_generation.py - prefill and decode speed of a decoder with a KV cache (issue 61):
shapec's library beside, on the same CPU, one thread, pinned: torch 2.14 eager running the
exported program (ep.module()), AOTInductor compiling that same program, ONNX Runtime 1.23
on the same model exported with its cache as inputs and outputs (past_i in, present_i out,
as people deploy decoders on it), and llama.cpp (Debian sid's llama-bench) on the same
weights converted by its own converter.

  taskset -c 0 scripts/real-torch.sh --peers run bench/kv_generation.py prepare OUTDIR [CONFIG ...]
      (in the sid chroot) exports each CONFIG's decoder with a static cache of 1024
      positions (examples/generate/export_decoder.py's recipe, transformers'
      TorchExportableModuleForDecoderOnlyLM), then times its peers: prefill of PROMPTS
      tokens, and decode steps at each context of CONTEXTS (one token per sequence, the
      cache filled that far); OUTDIR/CONFIG/model.pt2 and peers.json (a config prepared
      before keeps its torch timings and times llama.cpp again, unless --again)
  taskset -c 0 /usr/bin/python3 bench/kv_generation.py time OUTDIR SHAPEC [CONFIG ...]
      exports with shapec, times the same calls through the Python package on a state
      handle (one thread), prints tokens/s beside the peers' and the fraction of the
      bandwidth floor decode reaches (weights + the cache read once a step, at the
      machine's measured copy bandwidth)

CONFIGS: gpt2 (GPT-2-small-sized: 12 layers, hidden 768, vocabulary 50257, 124M
parameters, float32, batch 1), gpt2-bf16 (the same in bfloat16), gpt2-b4 (float32, four
sequences), gpt2-bf16-b4, llama (~100M, Llama-shaped, 8 layers) and llama-bf16.
llama.cpp gets the model through convert_hf_to_gguf.py with a placeholder vocabulary (there is no hub here, and
llama-bench feeds token ids, never text), its cache in the model's dtype; it times one
sequence, so batch-4 rows have no llama.cpp cell; llama-bench's cache types stop at
float16, so a float32 model's llama.cpp cache is float16."""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import timeit  # noqa: E402  (the timer every bench/ script uses; before numpy: OpenBLAS)

import numpy as np  # noqa: E402

PROMPTS = (128, 512)
CONTEXTS = (128, 512, 1000)
MAX_CACHE = 1024
SHAPES = {"gpt2": dict(layers=12, hidden=768, heads=12, vocab=50257),
          "llama": dict(layers=8, hidden=768, heads=12, vocab=32000)}
CONFIGS = {"gpt2": ("gpt2", "float32", 1), "gpt2-bf16": ("gpt2", "bfloat16", 1), "gpt2-b4": ("gpt2", "float32", 4),
           "gpt2-bf16-b4": ("gpt2", "bfloat16", 4),
           "llama": ("llama", "float32", 1), "llama-bf16": ("llama", "bfloat16", 1)}
DEFAULT = ("gpt2", "gpt2-bf16", "gpt2-b4", "gpt2-bf16-b4")
CONVERTER = "/usr/share/doc/llama.cpp-tools/scripts/convert_hf_to_gguf.py"
# the converter with a placeholder vocabulary: the tokens' names never matter to llama-bench
CONVERT = """
import json, runpy, sys
sys.path.insert(1, '/usr/share/llama.cpp/llama.cpp-tools')
import conversion
def placeholder_vocab(self):
    n = self.hparams["vocab_size"]
    w = self.gguf_writer
    w.add_tokenizer_model("gpt2"); w.add_tokenizer_pre("default")
    w.add_token_list([f"<t{i}>" for i in range(n)]); w.add_token_types([1] * n); w.add_token_merges(["< t"])
conversion.get_model_class(sys.argv[1]).set_vocab = placeholder_vocab
sys.argv = ["convert_hf_to_gguf.py"] + sys.argv[2:]
runpy.run_path(%r, run_name="__main__")
""" % CONVERTER


def calls(vocab, batch):
    """The timed calls: (label, tokens it processes, kwargs)."""
    import torch
    out = []
    for n in PROMPTS:
        ids = torch.randint(0, vocab, (batch, n), generator=torch.Generator().manual_seed(n))
        out.append((f"prefill {n}", batch * n, dict(input_ids=ids, cache_position=torch.arange(n))))
    for c in CONTEXTS:
        out.append((f"decode at {c}", batch, dict(input_ids=torch.full((batch, 1), 7), cache_position=torch.tensor([c]))))
    return out


def why(e):
    return f"{type(e).__name__}: {str(e).strip().splitlines()[0][:150] if str(e).strip() else ''}"


def llama_cpp(model, d, dtype):
    """llama-bench on the model converted by llama.cpp's converter: {label: ms}, or why not."""
    hf = os.path.join(d, "hf")
    model.save_pretrained(hf)
    with open(os.path.join(hf, "config.json")) as f:
        cfg = json.load(f)
    cfg.setdefault("n_ctx", cfg.get("n_positions", 2048))  # GPT-2's converter reads the old name
    with open(os.path.join(hf, "config.json"), "w") as f:
        json.dump(cfg, f)
    gguf = os.path.join(d, "model.gguf")
    kind = {"float32": "f32", "bfloat16": "bf16"}[dtype]
    r = subprocess.run([sys.executable, "-c", CONVERT, cfg["architectures"][0], hf, "--outfile", gguf, "--outtype", kind],
                       capture_output=True, text=True)
    if r.returncode:
        return f"the converter failed: {r.stderr.strip().splitlines()[-1][:200]}"
    res = {}
    runs = [["-p", ",".join(map(str, PROMPTS)), "-n", "0"], ["-p", "0", "-n", "16", "-d", ",".join(map(str, CONTEXTS))]]
    for extra in runs:
        cache = ["-ctk", kind, "-ctv", kind] if kind != "f32" else []  # its cache types stop at f16
        r = subprocess.run(["llama-bench", "-m", gguf, "-t", "1", "-r", "3", "-o", "json", *cache, *extra],
                           capture_output=True, text=True)
        if r.returncode:
            return f"llama-bench failed: {r.stderr.strip().splitlines()[-1][:200]}"
        for row in json.loads(r.stdout):
            tokens = row["n_prompt"] or row["n_gen"]
            label = f"prefill {row['n_prompt']}" if row["n_prompt"] else f"decode at {row['n_depth']}"
            res[label] = row["avg_ns"] / 1e6 / (1 if row["n_prompt"] else tokens)  # ms per call (one token a step)
    return res


def ort_decoder(model, d, family, batch):
    """ONNX Runtime as people deploy a decoder on it: the cache as inputs and outputs
    (past_i in, present_i out: past + the new positions), exported by torch's own exporter
    (dynamo=False) with the model's eager attention; {label: ms}, or why not."""
    import copy
    import torch
    from transformers import DynamicCache
    try:
        import onnxruntime as ort
    except ImportError:
        return "onnxruntime is not installed (scripts/real-torch.sh --peers setup)"
    m = copy.deepcopy(model)
    m.config._attn_implementation = "eager"  # the exporter's own attention: a mask from the shapes
    cfg = m.config
    layers = getattr(cfg, "num_hidden_layers", None) or cfg.n_layer
    heads = getattr(cfg, "num_attention_heads", None) or cfg.n_head
    kv_heads = getattr(cfg, "num_key_value_heads", None) or heads
    head_dim = (getattr(cfg, "hidden_size", None) or cfg.n_embd) // heads
    dtype = next(m.parameters()).dtype

    class Decoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.m = m

        def forward(self, input_ids, attention_mask, *past):
            cache = DynamicCache()
            for i in range(layers):
                cache.update(past[2 * i], past[2 * i + 1], i)
            o = self.m(input_ids=input_ids, attention_mask=attention_mask, past_key_values=cache, use_cache=True)
            kv = o.past_key_values
            return (o.logits, *[t for i in range(layers) for t in (kv.layers[i].keys, kv.layers[i].values)])

    names = [f"past_{i}" for i in range(2 * layers)]
    presents = [f"present_{i}" for i in range(2 * layers)]
    axes = {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "total"}, "logits": {0: "batch", 1: "seq"},
            **{n: {0: "batch", 2: "past"} for n in names}, **{n: {0: "batch", 2: "total"} for n in presents}}
    path = os.path.join(d, "decoder.onnx")

    def past_of(length):
        return [torch.randn(batch, kv_heads, length, head_dim).to(dtype) for _ in range(2 * layers)]

    try:
        with torch.no_grad():
            torch.onnx.export(Decoder().eval(), (torch.ones((batch, 2), dtype=torch.long),
                                                 torch.ones((batch, 7), dtype=torch.long), *past_of(5)), path,
                              dynamo=False, input_names=["input_ids", "attention_mask", *names],
                              output_names=["logits", *presents], dynamic_axes=axes, opset_version=17)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads, opts.inter_op_num_threads = 1, 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        sess = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
        res = {}
        for label, tokens, kw in calls(cfg.vocab_size, batch):
            n, at = kw["input_ids"].shape[1], int(kw["cache_position"][0])
            feed = {"input_ids": kw["input_ids"].numpy(), "attention_mask": np.ones((batch, at + n), np.int64),
                    **{name: t.float().numpy() if dtype == torch.float32 else t.numpy() for name, t in zip(names, past_of(at))}}
            sess.run(None, feed)
            res[label] = timeit(lambda: sess.run(None, feed))
        return res
    except Exception as e:  # noqa: BLE001 - the table says why
        return why(e)


def prepare(out, configs):
    import torch
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "generate"))
    from export_decoder import build
    from torch.export import Dim
    from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM
    torch.set_num_threads(1)
    for name in configs:
        family, dtype, batch = CONFIGS[name]
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        model = build(family, **SHAPES[family]).to(getattr(torch, dtype))
        wrapper = TorchExportableModuleForDecoderOnlyLM(model, batch_size=batch, max_cache_len=MAX_CACHE)
        seq = Dim("seq", min=1, max=max(PROMPTS))
        ep = wrapper.export(input_ids=torch.ones((batch, 4), dtype=torch.long), cache_position=torch.arange(4),
                            dynamic_shapes={"input_ids": {1: seq}, "cache_position": {0: seq}})
        torch.export.save(ep, os.path.join(d, "model.pt2"))
        path = os.path.join(d, "peers.json")
        if os.path.exists(path) and "--again" not in sys.argv:  # torch's sides timed before stay; llama.cpp again
            with open(path) as f:
                result = json.load(f)
            result["llama_cpp"] = llama_cpp(model, d, dtype) if batch == 1 else "llama-bench times one sequence"
            result["ort"] = ort_decoder(model, d, family, batch)
            with open(path, "w") as f:
                json.dump(result, f, indent=1)
            print(name, json.dumps(result), flush=True)
            continue
        result = {"params": sum(p.numel() for p in model.parameters()), "dtype": dtype, "batch": batch,
                  "torch": torch.__version__, "eager": {}, "aoti": {}}
        timed = calls(SHAPES[family]["vocab"], batch)
        module = ep.module()
        with torch.no_grad():
            for label, _, kw in timed:
                result["eager"][label] = timeit(lambda: module(**kw))
            try:
                t0 = time.time()
                package = torch._inductor.aoti_compile_and_package(ep, package_path=os.path.join(d, "aoti.pt2"))
                result["aoti_compile_s"] = time.time() - t0
                runner = torch._inductor.aoti_load_package(package)
                for label, _, kw in timed:
                    result["aoti"][label] = timeit(lambda: runner(**kw))
            except Exception as e:  # noqa: BLE001 - the table says why
                result["aoti"] = why(e)
        result["llama_cpp"] = llama_cpp(model, d, dtype) if batch == 1 else "llama-bench times one sequence"
        result["ort"] = ort_decoder(model, d, family, batch)
        with open(os.path.join(d, "peers.json"), "w") as f:
            json.dump(result, f, indent=1)
        print(name, json.dumps(result), flush=True)


def copy_bandwidth():
    """bytes/s of a large copy on this core (the floor decode can reach: it streams the weights)"""
    a = np.ones(64 << 20, np.uint8)
    b = np.empty_like(a)
    ms = timeit(lambda: np.copyto(b, a))
    return 2 * a.nbytes / (ms / 1e3)  # read + write


def time_shapec(out, shapec, configs):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
    import shapec as pkg
    os.sched_setaffinity(0, {0})
    bw = copy_bandwidth()
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    print(f"CPU: {cpu}, one thread pinned to CPU 0; copy bandwidth {bw / 1e9:.1f} GB/s")
    notes = []
    for name in configs:
        d = os.path.join(out, name)
        with open(os.path.join(d, "peers.json")) as f:
            peers = json.load(f)
        family, dtype, batch = CONFIGS[name]
        lib = os.path.join(d, "shapec")
        t0 = time.time()
        subprocess.run([shapec, "export", os.path.join(d, "model.pt2"), "-o", lib], check=True, capture_output=True)
        print(f"\n{name}: {peers['params'] / 1e6:.0f}M parameters, {dtype}, batch {batch}; shapec export "
              f"{time.time() - t0:.1f} s, AOTInductor {peers.get('aoti_compile_s', float('nan')):.0f} s")
        m = pkg.load(os.path.join(lib, "model.so"))
        m.set_num_threads(1)
        st = m.new_state()
        weight_bytes = peers["params"] * (2 if dtype == "bfloat16" else 4)
        cache_row = sum(v.nbytes for v in (st[n] for n in m.state_names)) / MAX_CACHE
        cols = [("torch 2.14 eager", peers["eager"]), ("AOTInductor", peers["aoti"]), ("ONNX Runtime", peers.get("ort", "not run")),
                ("llama.cpp", peers["llama_cpp"])]
        for label, side in cols[1:]:
            if isinstance(side, str):
                notes.append(f"{name}: {label}: {side}")
        print("| call | " + " | ".join(c for c, _ in cols) + " | shapec | shapec / fastest peer | decode: shapec's "
              "fraction of the bandwidth floor |")
        print("|---" * (len(cols) + 4) + "|")
        rng = np.random.default_rng(0)
        for label in [f"prefill {n}" for n in PROMPTS] + [f"decode at {c}" for c in CONTEXTS]:
            if label.startswith("prefill"):
                n = int(label.split()[1])
                ids, pos, tokens = rng.integers(0, SHAPES[family]["vocab"], (batch, n)), np.arange(n), batch * n
            else:
                c = int(label.split()[-1])
                ids, pos, tokens = np.full((batch, 1), 7), np.array([c]), batch
            ids, pos = ids.astype(np.int64), pos.astype(np.int64)
            ms = timeit(lambda: st(ids, pos))
            floor_ms = (weight_bytes + cache_row * int(label.split()[-1])) / bw * 1e3 if label.startswith("decode") else None
            cells, best = [], None
            for _, side in cols:
                v = side.get(label) if isinstance(side, dict) else None
                share = f", {floor_ms / v:.2f} of the floor" if v and floor_ms else ""
                cells.append(f"{tokens / v * 1e3:.1f} tok/s ({v:.1f} ms{share})" if v else "n/a")
                best = v if v and (best is None or v < best) else best
            floor = f"{floor_ms / ms:.2f}" if floor_ms else ""
            print(f"| {label} | " + " | ".join(cells) + f" | {tokens / ms * 1e3:.1f} tok/s ({ms:.1f} ms) | "
                  f"{ms / best:.2f} | {floor} |" if best else f"| {label} | {' | '.join(cells)} | {ms:.1f} ms | n/a | {floor} |")
        st.close()
    for line in notes:
        print(line)


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("prepare", "time"):
        sys.exit(__doc__)
    if sys.argv[1] == "prepare":
        prepare(sys.argv[2], [a for a in sys.argv[3:] if not a.startswith("--")] or DEFAULT)
    else:
        time_shapec(sys.argv[2], sys.argv[3], sys.argv[4:] or DEFAULT)


if __name__ == "__main__":
    main()
