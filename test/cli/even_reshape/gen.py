"""gen.py - model.pt2 here: a reshape that needs ids.size()[0]*ids.size()[1] even, exported
by torch 2.14.1 with Dim.AUTO on both dims (its guards_code: `32 * ids.size()[0] *
ids.size()[1] % 64 == 0`; ep.module() refuses [3, 3, 32] with exactly that).

    scripts/real-torch.sh run test/cli/even_reshape/gen.py"""
import torch
from torch.export import Dim


class M(torch.nn.Module):
    def forward(self, ids):
        return ids.reshape(-1, 2, 32).sum(1)


ep = torch.export.export(M(), (torch.ones(2, 4, 32),), dynamic_shapes={"ids": {0: Dim.AUTO, 1: Dim.AUTO}})
torch.export.save(ep, "/src/test/cli/even_reshape/model.pt2")
