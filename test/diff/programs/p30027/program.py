# seed 30027; dynamic_shapes: ({0: Dim('s6', min=1, max=19), 1: Dim('s5', min=1, max=1024), 2: Dim('s2', min=1, max=37)}, DimHint(DYNAMIC))
def forward(self, x, n):
    h = x
    h = h.nonzero().float()
    torch._check(h.shape[0] != 1)
    h = h.relu()
    h = torch.cat([h, h], dim=0)
    return h
