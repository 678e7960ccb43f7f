"""gen_kv.py - decoders exported for generation with a KV cache (issue 61), as
transformers 5.12 documents it, with torch 2.14's answers: test/real/kv/<family>/.

    scripts/real-torch.sh --torch 2.14 run test/real/gen_kv.py [FAMILY...]

Each decoder is built by transformers from a tiny config (gen_hf.FAMILIES: 2 layers,
hidden 32, vocabulary 96) with random weights (torch.manual_seed(0), a wider init than
the default so that greedy tokens vary), given a static cache
(generation_config.cache_implementation = "static", max_cache_len MAX_CACHE) and wrapped
in transformers.integrations.executorch.TorchExportableModuleForDecoderOnlyLM, then
exported by its own export() (strict, as its default) with one dynamic Dim for the
sequence of input_ids and cache_position, so that one program serves a prefill of any
length and each one-token decode step.  The cache is the program's buffers, which it
updates in place (index_copy_).

answers.json holds, for each prompt, transformers' model.generate(do_sample=False,
max_new_tokens=NEW) tokens (the contract), the tokens of ep.module() stepped as users
step it (prefill, then one token at a time), and the prefill's last logits."""
import json
import os
import sys
import traceback

import torch
from torch.export import Dim

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_hf  # noqa: E402

OUT = os.path.join(HERE, "kv")
MAX_CACHE = 96
MAX_PROMPT = 24
NEW = 64
DECODERS = ["gpt2", "llama", "qwen2", "qwen3", "mistral", "gemma", "phi3", "llama_nonstrict"]
# llama_nonstrict: exported with strict=False, where torch lifts the cache's tensors as
# constants (no buffers) that the program updates in place; ep.module() keeps them as state
# the same families with the cache as the program's inputs and outputs (dynamic_case)
DYNAMIC = ["gpt2", "llama", "qwen2", "qwen3", "mistral", "gemma", "phi3"]
PROMPTS = [[5, 17, 33, 2, 9], [1], [40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57]]


def build(name):
    import transformers

    family = next(f for f in gen_hf.FAMILIES if f[0] == name)
    _, config_cls, model_cls, extra, _, _ = family
    config = getattr(transformers, config_cls)(vocab_size=gen_hf.VOCAB, **extra)
    config.initializer_range = 0.2  # varied tokens from random weights (the default 0.02 repeats one)
    config._attn_implementation = "sdpa"
    torch.manual_seed(0)
    model = getattr(transformers, model_cls)(config).eval()
    gc = model.generation_config
    gc.cache_implementation = "static"
    gc.use_cache = True
    gc.eos_token_id = None  # every prompt generates NEW tokens
    gc.pad_token_id = 0
    return model


def stepped(module, prompt):
    """ep.module() as users step it: the prompt at once, then one token at a time."""
    out = module(input_ids=torch.tensor([prompt]), cache_position=torch.arange(len(prompt)))
    logits = out[0, -1].clone()
    tokens = [int(out[0, -1].argmax())]
    for pos in range(len(prompt), len(prompt) + NEW - 1):
        out = module(input_ids=torch.tensor([[tokens[-1]]]), cache_position=torch.tensor([pos]))
        tokens.append(int(out[0, -1].argmax()))
    return tokens, logits


def margin(model, prompt, tokens):
    """The smallest gap between the best and second-best logit over the generated
    tokens (a near-tie would make the test's token comparison fragile)."""
    ids = torch.tensor([prompt + tokens])
    with torch.no_grad():
        logits = model(ids, use_cache=False).logits[0, len(prompt) - 1:-1]
    top = logits.topk(2, dim=-1).values
    return float((top[:, 0] - top[:, 1]).min())


def generate_case(name):
    from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM

    family = name.split("_nonstrict")[0]
    model = build(family)
    wrapper = TorchExportableModuleForDecoderOnlyLM(model, batch_size=1, max_cache_len=MAX_CACHE)
    seq = Dim("seq", min=1, max=MAX_PROMPT)
    ep = wrapper.export(input_ids=torch.tensor([[1, 2, 3, 4]]), cache_position=torch.arange(4),
                        dynamic_shapes={"input_ids": {1: seq}, "cache_position": {0: seq}},
                        strict=not name.endswith("_nonstrict"))
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    torch.export.save(ep, os.path.join(d, "model.pt2"))
    answers = {"family": name, "torch": torch.__version__, "max_cache_len": MAX_CACHE, "max_prompt": MAX_PROMPT,
               "new_tokens": NEW, "strict": not name.endswith("_nonstrict"),
               "prompts": []}
    for prompt in PROMPTS:
        module = torch.export.load(os.path.join(d, "model.pt2")).module()  # a fresh cache for each prompt
        with torch.no_grad():
            tokens, logits = stepped(module, prompt)
            ids = torch.tensor([prompt])
            generated = model.generate(ids, attention_mask=torch.ones_like(ids), do_sample=False,
                                       max_new_tokens=NEW, min_new_tokens=NEW)[0, len(prompt):].tolist()
        answers["prompts"].append({"prompt": prompt, "generate": generated, "exported_program": tokens,
                                   "prefill_last_logits": [round(float(v), 6) for v in logits],
                                   "top2_margin": round(margin(model, prompt, generated), 6)})
    with open(os.path.join(d, "answers.json"), "w") as f:
        json.dump(answers, f, indent=1)
        f.write("\n")
    same = all(p["generate"] == p["exported_program"] for p in answers["prompts"])
    return "ok" if same else "exported-program-differs-from-generate"


def dynamic_case(family):
    """The other cache style: the cache as the program's inputs and outputs (transformers'
    DynamicCache, registered for export by register_dynamic_cache_export_support(), the
    model exported with its keyword inputs as export_with_dynamic_cache does), with Dims for
    the new tokens and the cache's length, so that one program serves a prefill on an
    empty cache and each decode step.  Stepped as users step ep.module(): the prompt on an
    empty cache, then one token at a time, each call's cache fed to the next."""
    from transformers import DynamicCache
    from transformers.integrations.executorch import register_dynamic_cache_export_support

    register_dynamic_cache_export_support()
    model = build(family)
    with torch.no_grad():
        cache = model(input_ids=torch.tensor([[5, 17, 33, 2, 9]]), use_cache=True).past_key_values
    n_layers = len(cache.layers)
    head = list(cache.layers[0].keys.shape)
    seq, past = Dim("seq", min=1, max=MAX_PROMPT), Dim("past", min=0, max=MAX_CACHE)
    with torch.no_grad():
        ep = torch.export.export(
            model, (), {"input_ids": torch.tensor([[7, 8]]), "attention_mask": torch.ones(1, 7, dtype=torch.long),
                        "past_key_values": cache, "use_cache": True},
            dynamic_shapes={"input_ids": {1: seq}, "attention_mask": {1: Dim.AUTO},
                            "past_key_values": [[{2: past}] * n_layers, [{2: past}] * n_layers], "use_cache": None},
            strict=False)
    name = family + "_dynamic"
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    torch.export.save(ep, os.path.join(d, "model.pt2"))
    answers = {"family": name, "torch": torch.__version__, "cache_style": "dynamic", "layers": n_layers,
               "empty_cache": [head[0], head[1], 0, head[3]], "max_prompt": MAX_PROMPT, "new_tokens": NEW,
               "prompts": []}
    module = torch.export.load(os.path.join(d, "model.pt2")).module()
    for prompt in PROMPTS:
        entry = {"prompt": prompt}
        with torch.no_grad():
            ids = torch.tensor([prompt])
            entry["generate"] = model.generate(ids, attention_mask=torch.ones_like(ids), do_sample=False,
                                               max_new_tokens=NEW, min_new_tokens=NEW)[0, len(prompt):].tolist()
            c = DynamicCache()
            for i in range(n_layers):
                c.update(torch.zeros(answers["empty_cache"]), torch.zeros(answers["empty_cache"]), i)
            cur, tokens = prompt, []
            try:
                for _ in range(NEW):
                    length = c.layers[0].keys.shape[2] + len(cur)
                    out = module(input_ids=torch.tensor([cur]), attention_mask=torch.ones(1, length, dtype=torch.long),
                                 past_key_values=c, use_cache=True)
                    if not tokens:
                        entry["prefill_last_logits"] = [round(float(v), 6) for v in out.logits[0, -1]]
                    tokens.append(int(out.logits[0, -1].argmax()))
                    c, cur = out.past_key_values, [tokens[-1]]
                entry["exported_program"] = tokens
                entry["top2_margin"] = round(margin(model, prompt, entry["generate"]), 6)
            except Exception as e:  # noqa: BLE001 - torch's refusal is an answer too
                entry["refused"] = {"error": type(e).__name__, "message": str(e)[:2000]}
        answers["prompts"].append(entry)
    with open(os.path.join(d, "answers.json"), "w") as f:
        json.dump(answers, f, indent=1)
        f.write("\n")
    same = all(p.get("exported_program", p["generate"]) == p["generate"] for p in answers["prompts"])
    return "ok" if same else "exported-program-differs-from-generate"


def register_encoder_decoder_cache():
    """EncoderDecoderCache as a pytree node of its two DynamicCaches, as a user registers it
    to export Whisper's decoder (transformers registers DynamicCache alone)."""
    import torch.utils._pytree as pytree
    from transformers import EncoderDecoderCache

    def children(c):
        return [c.self_attention_cache, c.cross_attention_cache]

    try:
        pytree.register_pytree_node(
            EncoderDecoderCache, lambda c: (children(c), None), lambda ch, _: EncoderDecoderCache(ch[0], ch[1]),
            serialized_type_name="transformers.cache_utils.EncoderDecoderCache",
            flatten_with_keys_fn=lambda c: ([(pytree.GetAttrKey("self_attention_cache"), c.self_attention_cache),
                                             (pytree.GetAttrKey("cross_attention_cache"), c.cross_attention_cache)], None))
    except ValueError as e:
        if "already registered" not in str(e):
            raise


def whisper_case():
    """Whisper's decoder with its cross-attention cache, the cache as inputs and outputs:
    three programs, as transformers' wrappers do not take Whisper (no lm_head): the encoder
    (input features -> hidden states), the first step (the start token over the encoder's
    states: logits, the self-attention cache of one position and the cross-attention cache)
    and the decode step (one token, a self-attention cache of any length, the cross cache
    reused).  greedy generate() with Whisper's token suppression off is the contract."""
    import transformers
    from transformers.integrations.executorch import register_dynamic_cache_export_support

    register_dynamic_cache_export_support()
    register_encoder_decoder_cache()
    config = transformers.WhisperConfig(
        vocab_size=gen_hf.VOCAB, d_model=32, encoder_layers=2, encoder_attention_heads=4, encoder_ffn_dim=64,
        num_mel_bins=16, max_source_positions=20, decoder_layers=2, decoder_attention_heads=4, decoder_ffn_dim=64,
        max_target_positions=NEW + 8, pad_token_id=0, bos_token_id=1, eos_token_id=2, decoder_start_token_id=3,
        init_std=1.0)  # varied tokens from random weights
    config._attn_implementation = "sdpa"
    torch.manual_seed(0)
    model = transformers.WhisperForConditionalGeneration(config).eval()
    gc = model.generation_config
    gc.eos_token_id, gc.pad_token_id = None, 0
    gc.suppress_tokens = gc.begin_suppress_tokens = gc.forced_decoder_ids = None  # plain greedy
    feats = [torch.randn(1, 16, 40) for _ in range(3)]
    start = config.decoder_start_token_id
    with torch.no_grad():
        encoder = torch.export.export(model.model.encoder, (feats[0],), strict=False)
        enc = model.model.encoder(feats[0]).last_hidden_state
        first_out = model(encoder_outputs=(enc,), decoder_input_ids=torch.tensor([[start]]), use_cache=True)
        first = torch.export.export(model, (), {"encoder_outputs": (enc,), "decoder_input_ids": torch.tensor([[start]]),
                                                "use_cache": True}, strict=False)
        cache = model(encoder_outputs=(enc,), decoder_input_ids=torch.tensor([[start, 7]]), use_cache=True).past_key_values
        n = len(cache)
        past = Dim("past", min=1, max=NEW + 4)
        step = torch.export.export(
            model, (), {"encoder_outputs": (enc,), "decoder_input_ids": torch.tensor([[9]]), "past_key_values": cache,
                        "use_cache": True},
            dynamic_shapes={"encoder_outputs": (None,), "decoder_input_ids": None,
                            "past_key_values": [[[{2: past}] * n, [{2: past}] * n], [[None] * n, [None] * n]],
                            "use_cache": None}, strict=False)
    del first_out
    d = os.path.join(OUT, "whisper_dynamic")
    os.makedirs(d, exist_ok=True)
    for name, ep in (("encoder", encoder), ("first", first), ("model", step)):
        torch.export.save(ep, os.path.join(d, name + ".pt2"))
    modules = [torch.export.load(os.path.join(d, f + ".pt2")).module() for f in ("encoder", "first", "model")]
    answers = {"family": "whisper_dynamic", "torch": torch.__version__, "cache_style": "dynamic",
               "encoder_decoder": True, "layers": n, "start_token": start, "new_tokens": NEW, "prompts": []}
    for x in feats:
        with torch.no_grad():
            generated = model.generate(x, do_sample=False, max_new_tokens=NEW, min_new_tokens=NEW)[0].tolist()
            hidden = modules[0](x).last_hidden_state
            out = modules[1](encoder_outputs=(hidden,), decoder_input_ids=torch.tensor([[start]]), use_cache=True)
            logits = [round(float(v), 6) for v in out.logits[0, -1]]
            tokens = [int(out.logits[0, -1].argmax())]
            c = out.past_key_values
            for _ in range(NEW - 1):
                out = modules[2](encoder_outputs=(hidden,), decoder_input_ids=torch.tensor([[tokens[-1]]]),
                                 past_key_values=c, use_cache=True)
                tokens.append(int(out.logits[0, -1].argmax()))
                c = out.past_key_values
        answers["prompts"].append({"input_features": [float(v) for v in x.flatten()], "features_shape":
                                   list(x.shape), "generate": generated, "exported_program": tokens,
                                   "first_logits": logits})
    with open(os.path.join(d, "answers.json"), "w") as f:
        json.dump(answers, f, indent=1)
        f.write("\n")
    same = all(p["generate"] == p["exported_program"] for p in answers["prompts"])
    return "ok" if same else "exported-program-differs-from-generate"


def t5_case():
    """T5 as transformers exports encoder-decoders for generation
    (Seq2SeqLMExportableModule: the encoder with a dynamic sequence, the decoder one token
    at a time over a static self-attention cache); generate() starts from token 0."""
    import transformers
    from transformers.integrations.executorch import Seq2SeqLMExportableModule

    config = transformers.T5Config(vocab_size=gen_hf.VOCAB, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4,
                                   relative_attention_num_buckets=8, decoder_start_token_id=0,
                                   initializer_factor=8.0)  # varied tokens from random weights
    torch.manual_seed(0)
    model = transformers.T5ForConditionalGeneration(config).eval()
    model.generation_config.eos_token_id = None
    s2s = Seq2SeqLMExportableModule(model, batch_size=1, max_hidden_seq_length=MAX_PROMPT,
                                    max_cache_length=NEW + 8).export(encoder_input_ids=torch.tensor([[1, 2, 3, 4, 5, 6]]))
    d = os.path.join(OUT, "t5")
    os.makedirs(d, exist_ok=True)
    torch.export.save(s2s.exported_encoder, os.path.join(d, "encoder.pt2"))
    torch.export.save(s2s.exported_decoder, os.path.join(d, "model.pt2"))
    answers = {"family": "t5", "torch": torch.__version__, "max_cache_len": NEW + 8, "max_prompt": MAX_PROMPT,
               "new_tokens": NEW, "strict": True, "encoder_decoder": True, "prompts": []}
    for prompt in PROMPTS:
        ids = torch.tensor([prompt])
        with torch.no_grad():
            exported = s2s.generate(ids, NEW + 1)[1:]  # after the start token
            generated = model.generate(ids, do_sample=False, max_new_tokens=NEW, min_new_tokens=NEW)[0, 1:].tolist()
        answers["prompts"].append({"prompt": prompt, "generate": generated, "exported_program": exported})
    with open(os.path.join(d, "answers.json"), "w") as f:
        json.dump(answers, f, indent=1)
        f.write("\n")
    same = all(p["generate"] == p["exported_program"] for p in answers["prompts"])
    return "ok" if same else "exported-program-differs-from-generate"


def run_case(name, make):
    try:
        verdict = make()
    except Exception:  # noqa: BLE001 - report and go on with the other families
        traceback.print_exc()
        verdict = "generator-error"
    print(f"kv {name}: {verdict}", flush=True)


def main(names):
    cases = [("whisper_dynamic", whisper_case), ("t5", t5_case)]
    cases += [(name, lambda name=name: generate_case(name)) for name in DECODERS]
    cases += [(f + "_dynamic", lambda f=f: dynamic_case(f)) for f in DYNAMIC]
    for name, make in cases:
        if not names or name in names:
            run_case(name, make)


if __name__ == "__main__":
    main(sys.argv[1:])
