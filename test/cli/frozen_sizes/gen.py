"""gen.py - static.pt2 here: `x.repeat(y.shape[0], 1) + torch.arange(y.shape[0] * 3)[:, None]`
exported by torch 2.14.1 without dynamic_shapes (the sizes read in Python frozen as 2 and
6), and dynamic.pt2, the same model exported with y's first dim dynamic, for comparison:
torch's program keeps the size symbolic there.  answers.txt: torch's output shape for y
of 2 and 3 rows, from the dynamic export.

    scripts/real-torch.sh run test/cli/frozen_sizes/gen.py"""
import torch
from torch.export import Dim


class M(torch.nn.Module):
    def forward(self, x, y):
        return x.repeat(y.shape[0], 1) + torch.arange(y.shape[0] * 3)[:, None]


x, y = torch.ones(3, 4), torch.ones(2, 5)
here = "/src/test/cli/frozen_sizes"
torch.export.save(torch.export.export(M(), (x, y)), f"{here}/static.pt2")
dyn = torch.export.export(M(), (x, y), dynamic_shapes={"x": None, "y": {0: Dim("n", min=2, max=16)}})
torch.export.save(dyn, f"{here}/dynamic.pt2")
with open(f"{here}/answers.txt", "w") as f:
    for rows in (2, 3):
        f.write(f"y rows {rows}: output {list(dyn.module()(x, torch.ones(rows, 5)).shape)}\n")
