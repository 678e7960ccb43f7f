#!/usr/bin/python3
"""nn.EmbeddingBag's index checks (runtime embedding_bag.c): the corpus's embedding_bag_modes
program (torch 2.14) compiled, then called with an index past the table and a negative one:
the call fails with torch's words (its max-mode message, which the sum and mean paths share
here) and the node's name, and valid ids still give torch's stored outputs.

usage: test_embedding_bag.py SHAPEC SOURCE_DIR"""
import ctypes
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_corpus  # noqa: E402  (the library calls)

shapec, src = sys.argv[1], sys.argv[2]
case = os.path.join(src, "test", "real", "corpus", "2.14", "embedding_bag_modes")
answers = json.load(open(os.path.join(case, "answers.json")))
samples = [np.asarray(s["data"], dtype=test_corpus.DTYPES[s["dtype"]]).reshape(s["shape"])
           for s in answers["sample_inputs"]]
failures = []
with tempfile.TemporaryDirectory() as tmp:
    r = subprocess.run([shapec, "export", os.path.join(case, "model.pt2"), "-o", tmp, "-q"], capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"export fails: {r.stderr}")
    lib = ctypes.CDLL(os.path.join(tmp, "model.so"))
    got = test_corpus.run_outputs(lib, samples)
    if isinstance(got, str) or not all(test_corpus.close(g.flatten(), w["data"]) for g, w in zip(got, answers["sample_outputs"])):
        failures.append(f"sample: {got if isinstance(got, str) else 'outputs differ from torch'}")
    for bad in (10, -1):
        ids = samples[0].copy()
        ids[3] = bad
        got = test_corpus.run_outputs(lib, [ids] + samples[1:])
        want = f"embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be {bad}"
        if not isinstance(got, str) or want not in got or "node '" not in got:
            failures.append(f"id {bad}: {got if isinstance(got, str) else 'runs'}, want {want!r}")
        else:
            print("ok:", got)
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
