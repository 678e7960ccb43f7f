"""kv_generation.py - prefill and decode speed of a decoder with a KV cache (issue 61):
shapec's library beside torch 2.14 eager running the same exported program
(ep.module()), on the same CPU, one thread, pinned.

  scripts/real-torch.sh --torch 2.14 run bench/kv_generation.py prepare OUTDIR [gpt2|llama]
      (in the sid chroot, under taskset -c 0) exports a GPT-2-small-sized decoder (12
      layers, hidden 768, vocabulary 50257: 124M parameters) or a ~100M Llama-shaped one
      with a static cache of 1024 positions (examples/generate/export_decoder.py's
      recipe), then times ep.module() on it: prefill of PROMPTS tokens, and decode steps
      at each context of CONTEXTS (one token, the cache filled that far);
      OUTDIR/MODEL/model.pt2 and torch.json
  /usr/bin/python3 bench/kv_generation.py time OUTDIR SHAPEC [MODEL]
      exports with shapec, times the same calls through the Python package on a state
      handle (one thread, pinned to CPU 0), prints tokens/s beside torch's and the
      fraction of the bandwidth floor decode reaches (weights + the cache read once a
      token, at the machine's measured copy bandwidth)."""
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


def prepare(out, names):
    import torch
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "generate"))
    from export_decoder import build
    from torch.export import Dim
    from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM
    torch.set_num_threads(1)
    for name in names:
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        model = build(name, **SHAPES[name])
        wrapper = TorchExportableModuleForDecoderOnlyLM(model, batch_size=1, max_cache_len=MAX_CACHE)
        seq = Dim("seq", min=1, max=max(PROMPTS))
        ep = wrapper.export(input_ids=torch.tensor([[1, 2, 3, 4]]), cache_position=torch.arange(4),
                            dynamic_shapes={"input_ids": {1: seq}, "cache_position": {0: seq}})
        torch.export.save(ep, os.path.join(d, "model.pt2"))
        module = ep.module()
        result = {"params": sum(p.numel() for p in model.parameters()), "prefill_ms": {}, "decode_ms": {}}
        with torch.no_grad():
            for n in PROMPTS:
                ids = torch.randint(0, SHAPES[name]["vocab"], (1, n))
                result["prefill_ms"][n] = timeit(lambda: module(input_ids=ids, cache_position=torch.arange(n)))
            for c in CONTEXTS:
                one, at = torch.tensor([[7]]), torch.tensor([c])
                result["decode_ms"][c] = timeit(lambda: module(input_ids=one, cache_position=at))
        with open(os.path.join(d, "torch.json"), "w") as f:
            json.dump(result, f, indent=1)
        print(name, result, flush=True)


def copy_bandwidth():
    """bytes/s of a large copy on this core (the floor decode can reach: it streams the weights)"""
    a = np.ones(64 << 20, np.uint8)
    b = np.empty_like(a)
    ms = timeit(lambda: np.copyto(b, a))
    return 2 * a.nbytes / (ms / 1e3)  # read + write


def time_shapec(out, shapec, names):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
    import shapec as pkg
    os.sched_setaffinity(0, {0})
    bw = copy_bandwidth()
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    print(f"CPU: {cpu}, one thread pinned to CPU 0; copy bandwidth {bw / 1e9:.1f} GB/s")
    for name in names:
        d = os.path.join(out, name)
        with open(os.path.join(d, "torch.json")) as f:
            torch_res = json.load(f)
        lib = os.path.join(d, "shapec")
        t0 = time.time()
        subprocess.run([shapec, "export", os.path.join(d, "model.pt2"), "-o", lib], check=True, capture_output=True)
        print(f"{name}: {torch_res['params'] / 1e6:.0f}M parameters; shapec export {time.time() - t0:.1f} s")
        m = pkg.load(os.path.join(lib, "model.so"))
        m.set_num_threads(1)
        st = m.new_state()
        weight_bytes = torch_res["params"] * 4
        cache_row = sum(v.nbytes for v in (st[n] for n in m.state_names)) / MAX_CACHE
        print("| call | torch 2.14 ep.module() | shapec | shapec / torch time | decode: fraction of the bandwidth floor (shapec, torch) |")
        print("|---|---|---|---|---|")
        for n in PROMPTS:
            ids = np.random.default_rng(0).integers(0, SHAPES[name]["vocab"], (1, n)).astype(np.int64)
            ms = timeit(lambda: st(ids, np.arange(n, dtype=np.int64)))
            tm = torch_res["prefill_ms"][str(n)]
            print(f"| prefill {n} | {n / tm * 1e3:.0f} tok/s ({tm:.1f} ms) | {n / ms * 1e3:.0f} tok/s ({ms:.1f} ms) "
                  f"| {ms / tm:.2f} | |")
        for c in CONTEXTS:
            one, at = np.array([[7]], np.int64), np.array([c], np.int64)
            ms = timeit(lambda: st(one, at))
            tm = torch_res["decode_ms"][str(c)]
            floor_ms = (weight_bytes + cache_row * c) / bw * 1e3
            print(f"| decode at {c} | {1e3 / tm:.1f} tok/s ({tm:.1f} ms) | {1e3 / ms:.1f} tok/s ({ms:.1f} ms) "
                  f"| {ms / tm:.2f} | {floor_ms / ms:.2f}, {floor_ms / tm:.2f} |")
        st.close()


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("prepare", "time"):
        sys.exit(__doc__)
    if sys.argv[1] == "prepare":
        prepare(sys.argv[2], sys.argv[3:] or list(SHAPES))
    else:
        time_shapec(sys.argv[2], sys.argv[3], sys.argv[4:] or list(SHAPES))


if __name__ == "__main__":
    main()
