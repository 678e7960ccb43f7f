#!/usr/bin/python3
"""generate.py - text generation from token ids with a decoder that shapec compiled
(examples/generate/README.md): the prompt at once, then one token at a time, on a state
of its own (the KV cache the library keeps between calls), or, for a program whose cache
is its inputs and outputs (transformers' DynamicCache: inputs past_key_values_*), with
each call's cache fed to the next, starting from an empty one.

    PYTHONPATH=python python3 examples/generate/generate.py MODEL.so NEW_TOKENS TOKEN... \\
        [--temperature T] [--top-k K] [--seed S]

Greedy by default (as generate(do_sample=False)); with --temperature, each token is
sampled from softmax(logits / T) over the K most likely, from NumPy's generator seeded
with S: the same seed gives the same tokens."""
import argparse

import numpy as np

import shapec


def pick(logits, temperature, top_k, rng):
    if temperature <= 0:
        return int(logits.argmax())
    z = logits.astype(np.float64) / temperature
    if 0 < top_k < z.size:
        z[z < np.sort(z)[-top_k]] = -np.inf
    p = np.exp(z - z.max())
    return int(rng.choice(z.size, p=p / p.sum()))


def empty_caches(model):
    """The program's cache inputs (past_key_values_*), each empty: its dynamic length 0."""
    inputs = {i["name"]: i for i in model.report["inputs"]}
    return [np.zeros([0 if isinstance(d, str) else d for d in inputs[name]["shape"]], inputs[name]["dtype"])
            for name in model.input_names if name.startswith("past_key_values")]


def generate_dynamic(model, prompt, new_tokens, temperature=0.0, top_k=0, seed=0):
    """The cache in and out: logits first among the outputs, then the caches in the
    inputs' order; an attention mask of ones over the cache and the new tokens.  Each
    cache lives in one buffer with room for the whole conversation: the past is a view of
    its first rows, the present a view of those and the new ones, so that the library
    writes only the new rows (Model.output_grows says which outputs may)."""
    rng = np.random.default_rng(seed)
    caches, cur, tokens = empty_caches(model), prompt, []
    grows = model.output_grows
    # one buffer per cache output that grows in place, sized for the prompt and every new token
    buffers = {}
    for name, (past, dim) in grows.items():
        empty = caches[[n for n in model.input_names if n.startswith("past_key_values")].index(past)]
        shape = list(empty.shape)
        shape[dim] = len(prompt) + new_tokens
        buffers[name] = (np.zeros(shape, empty.dtype), dim)
    def view(name, length):
        buf, dim = buffers[name]
        return buf[(slice(None),) * dim + (slice(0, length),)]
    length = 0
    if buffers:  # the pasts as empty views of their buffers
        by_input = {past: out for out, (past, _) in grows.items()}
        names = [n for n in model.input_names if n.startswith("past_key_values")]
        caches = [view(by_input[n], 0) if n in by_input else c for n, c in zip(names, caches)]
    for _ in range(new_tokens):
        given = {"input_ids": np.array([cur], np.int64)}
        if "attention_mask" in model.input_names:
            given["attention_mask"] = np.ones((1, caches[0].shape[2] + len(cur)), np.int64)
        if "use_cache" in model.input_names:
            given["use_cache"] = True
        length += len(cur)
        out = model.run(*caches_in_order(model, given, caches),
                        out=[view(name, length) if name in buffers else None for name in model.output_names])
        tokens.append(pick(out[0][0, -1], temperature, top_k, rng))
        caches, cur = list(out[1:1 + len(caches)]), [tokens[-1]]
    return tokens


def caches_in_order(model, given, caches):
    it = iter(caches)
    return [next(it) if name.startswith("past_key_values") else given[name] for name in model.input_names]


def generate(model, prompt, new_tokens, temperature=0.0, top_k=0, seed=0):
    if any(name.startswith("past_key_values") for name in model.input_names):
        return generate_dynamic(model, prompt, new_tokens, temperature, top_k, seed)
    state = model.new_state()  # a conversation of its own: the cache starts empty
    rng = np.random.default_rng(seed)
    try:
        logits = state(np.array([prompt], np.int64), np.arange(len(prompt), dtype=np.int64))
        tokens = [pick(logits[0, -1], temperature, top_k, rng)]
        for pos in range(len(prompt), len(prompt) + new_tokens - 1):
            logits = state(np.array([[tokens[-1]]], np.int64), np.array([pos], np.int64))
            tokens.append(pick(logits[0, -1], temperature, top_k, rng))
        return tokens
    finally:
        state.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("new_tokens", type=int)
    ap.add_argument("prompt", type=int, nargs="+")
    ap.add_argument("--temperature", type=float, default=0.0)
    ap.add_argument("--top-k", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    model = shapec.load(a.model)
    print(" ".join(map(str, generate(model, a.prompt, a.new_tokens, a.temperature, a.top_k, a.seed))))


if __name__ == "__main__":
    main()
