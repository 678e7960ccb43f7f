# seed 100083; dynamic_shapes: {'x': {0: r0 + 1, 1: DimHint(AUTO)}, 'y': {0: DimHint(AUTO)}}
# families: cat, check, split; inputs: y
def forward(self, x, y):
    h = x
    h = h.chunk(2, dim=1)[0]
    torch._check(h.shape[1] != 3)
    h = torch.stack([h, h * 2], dim=0)
    h = h.split([1, h.shape[0] - 1], dim=0)[1]
    return h
