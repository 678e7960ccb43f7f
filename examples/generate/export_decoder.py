"""export_decoder.py - a transformers decoder exported for generation, as transformers
documents it (run with real torch: scripts/real-torch.sh run examples/generate/export_decoder.py).

    export_decoder.py FAMILY OUT.pt2 [--layers N --hidden H --heads A --vocab V --max-cache C]

FAMILY is gpt2, llama or qwen2; the model is built from a config of that size with random
weights (seed 0; there is no hub here), given a static KV cache of C positions, wrapped in
TorchExportableModuleForDecoderOnlyLM and exported with one dynamic sequence Dim, so that
the program serves the prompt and every one-token step.  It also prints the first tokens
transformers' generate() gives for the prompt 5 17 33 2 9, to compare with generate.py."""
import argparse

import torch
import transformers
from torch.export import Dim
from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM


def build(family, layers, hidden, heads, vocab):
    if family == "gpt2":
        config = transformers.GPT2Config(n_embd=hidden, n_layer=layers, n_head=heads, vocab_size=vocab, n_positions=2048)
        cls = transformers.GPT2LMHeadModel
    else:
        config_cls, cls = {"llama": (transformers.LlamaConfig, transformers.LlamaForCausalLM),
                           "qwen2": (transformers.Qwen2Config, transformers.Qwen2ForCausalLM)}[family]
        config = config_cls(hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
                            num_key_value_heads=max(1, heads // 2), intermediate_size=hidden * 4, vocab_size=vocab,
                            max_position_embeddings=2048)
    config.initializer_range = 0.2  # varied tokens from random weights
    torch.manual_seed(0)
    model = cls(config).eval()
    model.generation_config.cache_implementation = "static"
    model.generation_config.eos_token_id = None
    model.generation_config.pad_token_id = 0
    return model


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("family", choices=["gpt2", "llama", "qwen2"])
    ap.add_argument("out")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--vocab", type=int, default=1000)
    ap.add_argument("--max-cache", type=int, default=256)
    ap.add_argument("--max-prompt", type=int, default=128)
    ap.add_argument("--new-tokens", type=int, default=16, help="how many tokens generate() gives (printed)")
    ap.add_argument("--prompt", type=int, nargs="+", default=[5, 17, 33, 2, 9])
    a = ap.parse_args()
    model = build(a.family, a.layers, a.hidden, a.heads, a.vocab)
    wrapper = TorchExportableModuleForDecoderOnlyLM(model, batch_size=1, max_cache_len=a.max_cache)
    seq = Dim("seq", min=1, max=a.max_prompt)
    ep = wrapper.export(input_ids=torch.tensor([[1, 2, 3, 4]]), cache_position=torch.arange(4),
                        dynamic_shapes={"input_ids": {1: seq}, "cache_position": {0: seq}})
    torch.export.save(ep, a.out)
    prompt = torch.tensor([a.prompt])
    with torch.no_grad():
        tokens = model.generate(prompt, attention_mask=torch.ones_like(prompt), do_sample=False,
                                max_new_tokens=a.new_tokens, min_new_tokens=a.new_tokens)[0, len(a.prompt):]
    print(f"wrote {a.out}; generate() after {' '.join(map(str, a.prompt))}:", " ".join(map(str, tokens.tolist())))


if __name__ == "__main__":
    main()
