# seed 225; dynamic_shapes: ({1: DimHint(STATIC), 2: DimHint(STATIC)},)
def forward(self, x):
    h = x
    torch._check(h.shape[1] >= 3)
    h = torch.cat([h, h], dim=0)
    if h.shape[0] > 1:
        h = h + 1
    else:
        h = h - 1
    return h
