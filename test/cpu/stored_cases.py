"""stored_cases.py - how the generators under real torch (gen_products.py, gen_tiny_ops.py)
store a case for the tests that run without torch: the ExportedProgram as model.pt2, and
for shape k in 0, 1 the inputs as in<k>_<i>.npy and torch's outputs as out<k>_<j>.npy."""
import os

import numpy as np
import torch


def save_case(folder, module, ep, samples, others):
    os.makedirs(folder, exist_ok=True)
    torch.export.save(ep, os.path.join(folder, "model.pt2"))
    for k, xs in enumerate((samples, others)):
        with torch.no_grad():
            outs = module(*xs)
        outs = outs if isinstance(outs, tuple) else (outs,)
        for i, x in enumerate(xs):
            np.save(os.path.join(folder, f"in{k}_{i}.npy"), x.numpy())
        for j, o in enumerate(outs):
            np.save(os.path.join(folder, f"out{k}_{j}.npy"), o.contiguous().numpy())
