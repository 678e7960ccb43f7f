#!/usr/bin/python3
"""Generation with a KV cache matches transformers token for token (issue 61).

Each decoder of test/real/kv/ (made by gen_kv.py in torch 2.14: transformers'
TorchExportableModuleForDecoderOnlyLM with a static cache, one dynamic sequence Dim) is
exported by shapec with no spec (the archive's ranges), loaded through the Python
package, and driven as users drive ep.module(): the prompt at once on a fresh state, then
one token at a time, 64 new tokens.  Checked for each prompt:
- the greedy tokens are transformers' model.generate(do_sample=False) tokens;
- the prefill's last logits are torch's within 1e-4.
The same families with the cache as the program's inputs and outputs (gen_kv.py's
dynamic_case: transformers' DynamicCache) are stepped from an empty cache, each call's
cache fed to the next: the same tokens and logits, and a prompt torch's ep.module()
refuses is refused with its guard's words.
Whisper (no transformers wrapper takes it) runs as users export it with the caches as
inputs and outputs: its encoder, a first step that makes the cross-attention cache, and a
decode step; the same tokens as generate() with token suppression off.
T5 (transformers' Seq2SeqLMExportableModule: an encoder program and a decoder program with
a static self-attention cache) runs the encoder once, then the decoder from token 0.
Each of them also with its caches grown in the caller's buffers (Model.run's out=, the
present a view of the past's buffer): the same tokens, nothing written past the present,
and a strided present over other memory refused.
On the first decoder-only family also:
- two states interleaved token by token give what each gives alone (independent
  conversations on one library), and the library's own state (plain calls) too;
- reset() brings a state back to the exported values: the same tokens again;
- the state's tensors are the cache: after a prefill of L tokens, rows [0, L) of the
  first key cache hold values and rows [L, max) are zero;
- a cache position past the cache is refused with index_copy_'s IndexError words, and a
  prompt longer than the Dim's max with the guard's words; neither crashes;
- shapec_model_run_with_state refuses another library's state and NULL, with a message;
- the C example (examples/generate/generate.c) generates the same tokens, and both
  examples on the first family whose cache is its inputs and outputs (grown in place).

usage: test_kv_cache.py SHAPEC SOURCE_DIR [FAMILY...]"""
import ctypes
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # test/, for tap
import tap  # noqa: E402


def export(shapec, pt2, out):
    r = subprocess.run([shapec, "export", pt2, "-o", out], capture_output=True, text=True, timeout=600)
    return r.returncode == 0, (r.stderr or r.stdout)[-2000:]


def greedy(run, prompt, new):
    """prefill, then new - 1 one-token steps: the tokens and the prefill's last logits"""
    out = run(np.array([prompt], np.int64), np.arange(len(prompt), dtype=np.int64))
    logits = out[0, -1].copy()
    tokens = [int(out[0, -1].argmax())]
    for pos in range(len(prompt), len(prompt) + new - 1):
        out = run(np.array([[tokens[-1]]], np.int64), np.array([pos], np.int64))
        tokens.append(int(out[0, -1].argmax()))
    return tokens, logits


def check_generation(t, what, tokens, logits, p):
    """The greedy tokens are generate()'s; the prefill's last logits torch's within 1e-4."""
    first_diff = next((k for k, (x, y) in enumerate(zip(tokens, p["generate"])) if x != y), None)
    t.check(tokens == p["generate"], f"{what}: {len(tokens)} greedy tokens "
            + ("= transformers' generate()" if first_diff is None else
               f"differ from generate() from token {first_diff} (top-2 margin {p['top2_margin']})"))
    err = float(np.max(np.abs(logits - np.array(p["prefill_last_logits"], np.float32))))
    t.check(err <= 1e-4, f"{what}: prefill logits within {err:.2e} of torch's")


def greedy_dynamic(model, answers, prompt, new):
    """The cache as inputs and outputs (transformers' DynamicCache): the prompt on an empty
    cache, then one token at a time, each call's cache fed to the next"""
    caches = [np.zeros(answers["empty_cache"], np.float32) for _ in range(2 * answers["layers"])]
    cur, tokens, logits = prompt, [], None
    for _ in range(new):
        length = caches[0].shape[2] + len(cur)
        out = model(np.array([cur], np.int64), np.ones((1, length), np.int64), *caches, True)
        if logits is None:
            logits = out[0][0, -1].copy()
        tokens.append(int(out[0][0, -1].argmax()))
        caches, cur = list(out[1:]), [tokens[-1]]
    return tokens, logits


def greedy_in_place(model, answers, prompt, new):
    """As greedy_dynamic, each cache in one buffer with room for the whole conversation:
    the past a view of its first rows, the present (Model.run's out=) a view of the same
    buffer with the new rows after them.  A strided output is taken only in place (the
    library refuses it otherwise), so a run that is not refused wrote the new rows alone.
    The rows past the present stay NaN: the library wrote no further."""
    grows = model.output_grows
    names = [n for n in model.input_names if n.startswith("past_key_values")]
    by_input = {past: out for out, (past, _) in grows.items()}
    cap = len(prompt) + new
    shape = list(answers["empty_cache"])
    shape[2] = cap
    buffers = {out: np.full(shape, np.nan, np.float32) for out in grows}
    caches = [buffers[by_input[n]][:, :, :0] for n in names]
    cur, tokens, logits, length = prompt, [], None, 0
    for _ in range(new):
        length += len(cur)
        outs = [buffers[name][:, :, :length] if name in buffers else None for name in model.output_names]
        out = model.run(np.array([cur], np.int64), np.ones((1, length), np.int64), *caches, True, out=outs)
        if logits is None:
            logits = out[0][0, -1].copy()
        tokens.append(int(out[0][0, -1].argmax()))
        caches, cur = list(out[1:]), [tokens[-1]]
    untouched = all(np.isnan(b[:, :, length:]).all() and not np.isnan(b[:, :, :length]).any() for b in buffers.values())
    return tokens, logits, untouched, grows


def in_place_checks(t, shapec_pkg, family, model, answers):
    """The cache grown in the caller's buffers gives the same tokens; output_grows names
    every cache; a strided present over other memory is refused, in words that say why."""
    p = next(p for p in answers["prompts"] if "refused" not in p)
    tokens, logits, untouched, grows = greedy_in_place(model, answers, p["prompt"], answers["new_tokens"])
    t.check(len(grows) == 2 * answers["layers"] and all(dim == 2 for _, dim in grows.values()),
            f"{family}: every cache output may grow in place along dim 2 ({len(grows)} of {2 * answers['layers']})")
    check_generation(t, f"{family} (cache grown in the caller's buffers) prompt of {len(p['prompt'])}", tokens, logits, p)
    t.check(untouched, f"{family}: the library wrote the cache's rows up to the present's length, none after")
    # a strided present that is not its past's memory: refused, not written compact or in place
    name = next(iter(grows))
    caches = [np.zeros(answers["empty_cache"], np.float32) for _ in range(2 * answers["layers"])]
    other = np.zeros(answers["empty_cache"][:2] + [16] + answers["empty_cache"][3:], np.float32)
    outs = [other[:, :, :10:2] if n == name else None for n in model.output_names]  # every other row: strided
    try:
        model.run(np.array([[5, 6, 7, 8, 9]], np.int64), np.ones((1, 5), np.int64), *caches, True, out=outs)
        t.check(False, f"{family}: a strided present over other memory than its past's ran")
    except shapec_pkg.GuardError as e:
        t.check(f"output '{name}' is strided" in str(e) and grows[name][0] in str(e),
                f"{family}: a strided present over other memory is refused: {str(e)[:150]}")


def greedy_whisper(encoder, first, step, answers, features):
    """Whisper's decoder with the cache as inputs and outputs: the encoder's states, the
    first step from the start token (which makes the cross-attention cache), then one
    token at a time, each call's self- and cross-attention caches fed to the next"""
    hidden = encoder(features)
    out = first(hidden, np.array([[answers["start_token"]]], np.int64), True)
    logits = out[0][0, -1].copy()
    tokens = [int(logits.argmax())]
    caches = list(out[1:1 + 4 * answers["layers"]])
    for _ in range(answers["new_tokens"] - 1):
        out = step(hidden, np.array([[tokens[-1]]], np.int64), *caches, True)
        tokens.append(int(out[0][0, -1].argmax()))
        caches = list(out[1:1 + 4 * answers["layers"]])
    return tokens, logits, hidden, caches


def greedy_whisper_in_place(first, step, answers, hidden):
    """greedy_whisper with the caller's buffers: each self-attention cache grows in one
    buffer (the first step's rows copied in once), and the cross-attention caches and the
    encoder's states, which the step returns as they came, are passed back over the
    inputs' own memory (the library then copies nothing for them)."""
    out = first(hidden, np.array([[answers["start_token"]]], np.int64), True)
    tokens = [int(out[0][0, -1].argmax())]
    caches = list(out[1:1 + 4 * answers["layers"]])
    grows = step.output_grows
    cap = 1 + answers["new_tokens"]
    buffers = {}
    for name, (past, _) in grows.items():
        c = caches[step.input_names.index(past) - 2]
        buffers[name] = np.full(c.shape[:2] + (cap,) + c.shape[3:], np.nan, np.float32)
        buffers[name][:, :, :c.shape[2]] = c
    by_input = {past: name for name, (past, _) in grows.items()}
    names = step.input_names[2:2 + 4 * answers["layers"]]
    length = caches[0].shape[2]
    caches = [buffers[by_input[n]][:, :, :length] if n in by_input else c for n, c in zip(names, caches)]
    for _ in range(answers["new_tokens"] - 1):
        outs = [None]
        for j, name in enumerate(step.output_names[1:], start=1):
            if name in buffers:
                outs.append(buffers[name][:, :, :length + 1])
            elif j <= len(caches):
                outs.append(caches[j - 1])  # a cross-attention cache, returned as it came
            else:
                outs.append(hidden)  # the encoder's states, returned as they came
        out = step.run(hidden, np.array([[tokens[-1]]], np.int64), *caches, True, out=outs)
        tokens.append(int(out[0][0, -1].argmax()))
        length += 1
        caches = list(out[1:1 + 4 * answers["layers"]])
    return tokens, len(grows)


def whisper_checks(t, shapec, shapec_pkg, family, kv, out, answers):
    libs = {}
    for part in ("encoder", "first", "model"):
        ok, log = export(shapec, os.path.join(kv, family, part + ".pt2"), out + "_" + part)
        t.check(ok, f"{family}: shapec export of {part}.pt2" + ("" if ok else ": " + log))
        if not ok:
            return
        libs[part] = shapec_pkg.load(os.path.join(out + "_" + part, "model.so"))
    for k, p in enumerate(answers["prompts"]):
        x = np.array(p["input_features"], np.float32).reshape(p["features_shape"])
        tokens, logits, hidden, caches = greedy_whisper(libs["encoder"], libs["first"], libs["model"], answers, x)
        first_diff = next((i for i, (a, b) in enumerate(zip(tokens, p["generate"])) if a != b), None)
        t.check(tokens == p["generate"], f"{family} (cross-attention cache in and out) features {k}: {len(tokens)} "
                "greedy tokens " + ("= transformers' generate()" if first_diff is None else
                                    f"differ from generate() from token {first_diff}"))
        ref = np.array(p["first_logits"], np.float32)  # large (init_std 1.0): held to 1e-4 of the largest, the corpus's measure
        err = float(np.max(np.abs(logits - ref)) / max(1.0, float(np.max(np.abs(ref)))))
        t.check(err <= 1e-4, f"{family} features {k}: first step's logits within {err:.2e} (relative) of torch's")
        if k == 0:
            tokens, grown = greedy_whisper_in_place(libs["first"], libs["model"], answers, hidden)
            t.check(tokens == p["generate"] and grown == 2 * answers["layers"],
                    f"{family} features {k}: the same tokens with the self-attention caches ({grown}) grown in the "
                    "caller's buffers and the cross-attention caches passed back over their inputs")
    # the layers' self-attention caches must have one length: torch's guard, checked by the library
    bad = list(caches)
    bad[1] = bad[1][:, :, :-1]
    try:
        libs["model"](hidden, np.array([[5]], np.int64), *bad, True)
        t.check(False, f"{family}: self-attention caches of different lengths run")
    except shapec_pkg.ShapecError as e:
        t.check("self_attention_cache" in str(e) and "key_cache" in str(e),
                f"{family}: self-attention caches of different lengths refused by torch's guard: {str(e)[:200]}")


def greedy_encoder_decoder(encoder, decoder, prompt, new):
    """the encoder on the prompt, then the decoder from the start token 0, one token a call
    on a fresh state (as Seq2SeqLMExportableModule.generate)"""
    hidden = encoder(np.array([prompt], np.int64))
    st = decoder.new_state()
    tokens = [0]
    for i in range(new):
        out = st(np.array([[tokens[-1]]], np.int64), hidden, np.array([i], np.int64))
        tokens.append(int(out[0, -1].argmax()))
    st.close()
    return tokens[1:]


def interleaved(model, a, b, new):
    """two conversations on two states, one step of each in turn"""
    sa, sb = model.new_state(), model.new_state()
    ta = [int(sa(np.array([a], np.int64), np.arange(len(a), dtype=np.int64))[0, -1].argmax())]
    tb = [int(sb(np.array([b], np.int64), np.arange(len(b), dtype=np.int64))[0, -1].argmax())]
    for k in range(new - 1):
        ta.append(int(sa(np.array([[ta[-1]]], np.int64), np.array([len(a) + k], np.int64))[0, -1].argmax()))
        tb.append(int(sb(np.array([[tb[-1]]], np.int64), np.array([len(b) + k], np.int64))[0, -1].argmax()))
    sa.close()
    sb.close()
    return ta, tb


def state_checks(t, shapec_pkg, model, answers, so, source_dir, tmp, other):
    prompts = answers["prompts"]
    new = answers["new_tokens"]
    a, b = prompts[0], prompts[2]
    ta, tb = interleaved(model, a["prompt"], b["prompt"], new)
    t.check(ta == a["generate"] and tb == b["generate"], "two states interleaved: each conversation as alone")
    own, _ = greedy(model, a["prompt"], new)
    t.check(own == a["generate"], "the library's own state (plain calls): transformers' tokens")
    model.state.reset()
    again, _ = greedy(model, a["prompt"], new)
    t.check(again == a["generate"], "after Model.state.reset(): the same tokens again")
    st = model.new_state()
    names = model.state_names
    key = next((n for n in names if st[n].ndim == 4), None)  # the first layer's key cache
    L = len(b["prompt"])
    st(np.array([b["prompt"]], np.int64), np.arange(L, dtype=np.int64))
    cache = st[key] if key else None
    filled = cache is not None and cache.ndim == 4 and bool(np.all(np.abs(cache[:, :, :L]).sum(axis=(0, 1, 3)) > 0))
    empty = cache is not None and cache.ndim == 4 and bool(np.all(cache[:, :, L:] == 0))
    t.check(filled and empty, f"state '{key}' after a prefill of {L}: rows [0, {L}) filled, the rest zero "
            f"(shape {None if cache is None else cache.shape})")
    st.reset()
    t.check(bool(np.all(st[key] == 0)), f"state.reset(): '{key}' back to zeros")
    past = answers["max_cache_len"]
    try:
        st(np.array([[1]], np.int64), np.array([past], np.int64))
        t.check(False, f"cache_position {past} (the cache holds {past}) is refused")
    except shapec_pkg.ShapecError as e:
        t.check(f"index_copy_(): index {past} is out of bounds for dimension 2 with size {past}" in str(e),
                f"cache_position {past} is refused with torch's words: {e}")
    too_long = answers["max_prompt"] + 1
    try:
        st(np.ones((1, too_long), np.int64), np.arange(too_long, dtype=np.int64))
        t.check(False, f"a prompt of {too_long} (the Dim's max is {too_long - 1}) is refused")
    except shapec_pkg.GuardError as e:
        t.check("Guard failed" in str(e), f"a prompt of {too_long} is refused: {str(e)[:120]}")
    st.close()
    # the C entry point refuses a handle of another library and NULL, with a message
    if other is not None:
        foreign = other.new_state()
        err = ctypes.create_string_buffer(512)
        rc = model._lib.run_with_state(ctypes.c_void_p(foreign._handle), None, None, err, len(err))
        t.check(rc == 2 and b"another model library" in err.value,
                f"run_with_state with another library's state: rc {rc}, {err.value.decode()!r}")
        rc = model._lib.run_with_state(None, None, None, err, len(err))
        t.check(rc == 2 and b"state is NULL" in err.value, f"run_with_state with NULL: rc {rc}, {err.value.decode()!r}")
        foreign.close()
    # the C example, built against the library
    exe = os.path.join(tmp, "generate")
    src = os.path.join(source_dir, "examples", "generate", "generate.c")
    r = subprocess.run(["cc", "-O2", "-o", exe, src, "-I", os.path.join(source_dir, "include"), "-ldl", "-lm"],
                       capture_output=True, text=True)
    if r.returncode:
        t.check(False, "examples/generate/generate.c builds: " + r.stderr[-500:])
        return
    r = subprocess.run([exe, so, str(new)] + [str(x) for x in a["prompt"]], capture_output=True, text=True,
                       timeout=120)
    got = [int(x) for x in r.stdout.split()] if r.returncode == 0 else None
    t.check(got == a["generate"], f"examples/generate/generate.c: transformers' tokens (rc {r.returncode}, "
            f"{r.stderr.strip()[-200:]})")


def main():
    shapec, source_dir = sys.argv[1], sys.argv[2]
    only = sys.argv[3:]
    sys.path.insert(0, os.path.join(source_dir, "python"))
    import shapec as shapec_pkg

    kv = os.path.join(source_dir, "test", "real", "kv")
    families = sorted(f for f in os.listdir(kv) if os.path.isdir(os.path.join(kv, f)) and (not only or f in only))
    t = tap.Checks()
    with tempfile.TemporaryDirectory() as tmp:
        decoders = []  # (model, answers, library) of the decoder-only families
        example_checked = False  # examples/generate/generate.py on the first cache-in-and-out family
        for family in families:
            with open(os.path.join(kv, family, "answers.json")) as f:
                answers = json.load(f)
            out = os.path.join(tmp, family)
            ok, log = export(shapec, os.path.join(kv, family, "model.pt2"), out)
            t.check(ok, f"{family}: shapec export" + ("" if ok else ": " + log))
            if not ok:
                continue
            model = shapec_pkg.load(os.path.join(out, "model.so"))
            if answers.get("encoder_decoder") and answers.get("cache_style") == "dynamic":
                whisper_checks(t, shapec, shapec_pkg, family, kv, out, answers)
                continue
            if answers.get("encoder_decoder"):
                ok, log = export(shapec, os.path.join(kv, family, "encoder.pt2"), out + "_encoder")
                t.check(ok, f"{family}: shapec export of the encoder" + ("" if ok else ": " + log))
                if not ok:
                    continue
                encoder = shapec_pkg.load(os.path.join(out + "_encoder", "model.so"))
                for p in answers["prompts"]:
                    tokens = greedy_encoder_decoder(encoder, model, p["prompt"], answers["new_tokens"])
                    t.check(tokens == p["generate"], f"{family} (encoder-decoder) prompt of {len(p['prompt'])}: "
                            f"{len(tokens)} greedy tokens " + ("= transformers' generate()" if tokens == p["generate"]
                                                              else f"differ: {tokens[:8]} vs {p['generate'][:8]}"))
                continue
            if answers.get("cache_style") == "dynamic":
                for p in answers["prompts"]:
                    what = f"{family} (cache in and out) prompt of {len(p['prompt'])}"
                    if "refused" in p:  # torch's ep.module() refuses it: so must the library, in its words
                        words = p["refused"]["message"].split("Guard failed: ")[-1].split(" False")[0]
                        try:
                            greedy_dynamic(model, answers, p["prompt"], 1)
                            t.check(False, f"{what}: refused by torch ({words}), run by the library")
                        except shapec_pkg.ShapecError as e:
                            t.check(words in str(e), f"{what}: refused as torch refuses it ({words}): {str(e)[:160]}")
                        continue
                    tokens, logits = greedy_dynamic(model, answers, p["prompt"], answers["new_tokens"])
                    check_generation(t, what, tokens, logits, p)
                in_place_checks(t, shapec_pkg, family, model, answers)
                if not example_checked:  # the Python example takes this style too
                    example_checked = True
                    p = answers["prompts"][0]
                    env = dict(os.environ, PYTHONPATH=os.path.join(source_dir, "python"))
                    r = subprocess.run([sys.executable, os.path.join(source_dir, "examples", "generate", "generate.py"),
                                        os.path.join(out, "model.so"), str(answers["new_tokens"])]
                                       + [str(v) for v in p["prompt"]], capture_output=True, text=True, env=env,
                                       timeout=300)
                    got = [int(v) for v in r.stdout.split()] if r.returncode == 0 else None
                    t.check(got == p["generate"], f"examples/generate/generate.py on {family} (cache in and out): "
                            f"transformers' tokens (rc {r.returncode}, {r.stderr[-300:]})")
                    # and the C example, its caches grown in place through the C ABI
                    exe = os.path.join(tmp, "generate_in_out")
                    r = subprocess.run(["cc", "-O2", "-o", exe, os.path.join(source_dir, "examples", "generate", "generate.c"),
                                        "-I", os.path.join(source_dir, "include"), "-ldl", "-lm"], capture_output=True,
                                       text=True)
                    if r.returncode == 0:
                        r = subprocess.run([exe, os.path.join(out, "model.so"), str(answers["new_tokens"])]
                                           + [str(v) for v in p["prompt"]], capture_output=True, text=True, timeout=120)
                    got = [int(v) for v in r.stdout.split()] if r.returncode == 0 else None
                    t.check(got == p["generate"], f"examples/generate/generate.c on {family} (cache in and out, grown "
                            f"in place): transformers' tokens (rc {r.returncode}, {r.stderr[-300:]})")
                continue
            for p in answers["prompts"]:
                st = model.new_state()
                tokens, logits = greedy(st, p["prompt"], answers["new_tokens"])
                st.close()
                check_generation(t, f"{family} prompt of {len(p['prompt'])}", tokens, logits, p)
            decoders.append((model, answers, os.path.join(out, "model.so")))
        if decoders:  # on the first; a second library's state for the refusals
            model, answers, so = decoders[0]
            state_checks(t, shapec_pkg, model, answers, so, source_dir, tmp, decoders[1][0] if len(decoders) > 1 else None)
    return t.finish()


if __name__ == "__main__":
    sys.exit(main())
