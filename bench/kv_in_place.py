#!/usr/bin/python3
"""kv_in_place.py - a decode step whose KV cache is the program's input and output
(transformers' DynamicCache), with the cache copied into a new present each step (plain
calls) and grown in the caller's buffer (Model.run's out=, docs/abi.md "A cache that grows
in place"), in one run.  A Llama-shaped decoder with grouped-query attention (12 query
heads over 4 key/value heads, 8 layers, hidden 768) in float32, batch 1.

    taskset -c 0 scripts/real-torch.sh run bench/kv_in_place.py prepare OUT
    build/shapec export OUT/model.pt2 -o OUT/shapec
    taskset -c 0 /usr/bin/python3 bench/kv_in_place.py time OUT/shapec/model.so [CONTEXT...]

prepare exports the program with torch 2.14 (random weights from the config); time runs
decode steps at each context length (default 128 512 1024), median of 20 steps, both ways,
and checks that both give the same logits."""
import json
import os
import sys
import time

LAYERS, HIDDEN, HEADS, KV_HEADS, VOCAB, MAX_CACHE = 8, 768, 12, 4, 32000, 2048


def prepare(out):
    import torch
    from torch.export import Dim
    from transformers import DynamicCache, LlamaConfig, LlamaForCausalLM
    from transformers.integrations.executorch import register_dynamic_cache_export_support

    register_dynamic_cache_export_support()
    torch.manual_seed(0)
    config = LlamaConfig(num_hidden_layers=LAYERS, hidden_size=HIDDEN, intermediate_size=4 * HIDDEN,
                         num_attention_heads=HEADS, num_key_value_heads=KV_HEADS, vocab_size=VOCAB,
                         max_position_embeddings=MAX_CACHE)
    model = LlamaForCausalLM(config).eval()
    with torch.no_grad():
        cache = model(input_ids=torch.tensor([[5, 17, 33, 2, 9]]), use_cache=True).past_key_values
        seq, past = Dim("seq", min=1, max=512), Dim("past", min=0, max=MAX_CACHE - 512)
        ep = torch.export.export(
            model, (), {"input_ids": torch.tensor([[7, 8]]), "attention_mask": torch.ones(1, 7, dtype=torch.long),
                        "past_key_values": cache, "use_cache": True},
            dynamic_shapes={"input_ids": {1: seq}, "attention_mask": {1: Dim.AUTO},
                            "past_key_values": [[{2: past}] * LAYERS, [{2: past}] * LAYERS], "use_cache": None},
            strict=False)
    os.makedirs(out, exist_ok=True)
    torch.export.save(ep, os.path.join(out, "model.pt2"))
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump({"layers": LAYERS, "kv_heads": KV_HEADS, "head_dim": HIDDEN // HEADS}, f)
    print(f"wrote {out}/model.pt2")


def time_steps(so, contexts):
    import numpy as np
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    import shapec

    cfg = json.load(open(os.path.join(os.path.dirname(so), "..", "config.json")))
    model = shapec.load(so)
    model.set_num_threads(1)
    grows = model.output_grows
    names = [n for n in model.input_names if n.startswith("past_key_values")]
    by_input = {past: o for o, (past, _) in grows.items()}
    rng = np.random.default_rng(0)
    print(f"{len(grows)} of {len(names)} caches may grow in place; decode step, ms (median of 20), one thread")
    print("| context | copied (plain calls) | grown in place | in place / copied | cache MB |")
    print("|---|---|---|---|---|")
    for ctx in contexts:
        shape = [1, cfg["kv_heads"], ctx + 64, cfg["head_dim"]]
        buffers = {o: rng.standard_normal(shape).astype(np.float32) for o in grows}
        pasts = [np.ascontiguousarray(buffers[by_input[n]][:, :, :ctx]) for n in names]
        args = [np.array([[7]], np.int64), np.ones((1, ctx + 1), np.int64)]
        copied, grown, logits = [], [], []
        for rounds in range(20):
            t = time.perf_counter()
            a = model(*args, *pasts, True)
            copied.append(time.perf_counter() - t)
            views = [buffers[by_input[n]][:, :, :ctx] for n in names]
            outs = [buffers[name][:, :, :ctx + 1] if name in buffers else None for name in model.output_names]
            t = time.perf_counter()
            b = model.run(*args, *views, True, out=outs)
            grown.append(time.perf_counter() - t)
            if rounds == 0:
                logits = (a[0], b[0])
        same = float(np.max(np.abs(logits[0] - logits[1])))
        mb = 2 * cfg["layers"] * np.prod(shape[:2]) * ctx * shape[3] * 4 / 1e6
        c, g = 1e3 * float(np.median(copied)), 1e3 * float(np.median(grown))
        print(f"| {ctx} | {c:.2f} | {g:.2f} | {g / c:.2f} | {mb:.0f} |  (logits differ by {same:.1e})")


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("prepare", "time"):
        sys.exit(__doc__)
    if sys.argv[1] == "prepare":
        prepare(sys.argv[2])
    else:
        time_steps(sys.argv[2], [int(a) for a in sys.argv[3:]] or [128, 512, 1024])


if __name__ == "__main__":
    main()
