# seed 120; dynamic_shapes: ({0: DimHint(DYNAMIC), 1: DimHint(AUTO), 2: Dim('d0_2', min=1, max=16)},)
def forward(self, x):
    h = x
    h = h * 0.5
    h = h.reshape(-1)
    torch._check(h.shape[0] != 71)
    h = torch.cat([h, h], dim=0)
    h = torch.cat([h, h], dim=0)
    return h
