# seed 100031; dynamic_shapes: {'x': None, 'xs': ({0: DimHint(DYNAMIC), 1: DimHint(AUTO)}, {0: DimHint(AUTO)}), 'k': {0: DimHint(STATIC)}}
# families: cat, check, unbacked, view; inputs: tuple
def forward(self, x, xs, *, k):
    x = x + k
    h = x
    torch._check(h.shape[0] != 4)
    torch._check(h.shape[0] >= k.shape[0])
    h = torch.cat([h, k], dim=0)
    return h
