"""gen.py - real files for test_load_weights.py: bfloat16 GPT-2 (test/real/half/bfloat16/
hf_gpt2, torch 2.14.1's export, its lm_head tied to the token embedding) with every weight
halved, saved by the safetensors package as transformers saves a checkpoint (a tied
weight once), and torch's logits with those weights (ep.module()).

    scripts/real-torch.sh run test/python/load_weights/gen.py"""
import json

import torch
from safetensors.torch import save_file

here = "/src/test/python/load_weights"
ep = torch.export.load("/src/test/real/half/bfloat16/hf_gpt2/model.pt2")
m = ep.module()
halved = {k: (v * 0.5 if v.is_floating_point() else v) for k, v in m.state_dict().items()}
m.load_state_dict(halved)
# a checkpoint holds a tied tensor once: the first name that holds its storage
seen, kept = set(), {}
for k, v in halved.items():
    if v.data_ptr() in seen:
        continue
    seen.add(v.data_ptr())
    kept[k] = v.contiguous()
save_file(kept, f"{here}/gpt2_halved.safetensors", metadata={"format": "pt"})
ids = torch.tensor([[5, 17, 3, 42, 8, 1, 9], [2, 4, 6, 8, 10, 12, 14]])
mask = torch.ones(2, 7, dtype=torch.int64)
with torch.no_grad():
    out = m(ids, mask)
logits = (out[0] if isinstance(out, (tuple, list)) else out).float()
json.dump({"ids": ids.tolist(), "mask": mask.tolist(), "names": sorted(kept), "all_names": sorted(halved),
           "logits": logits.flatten().tolist(), "shape": list(logits.shape)}, open(f"{here}/answers.json", "w"))
