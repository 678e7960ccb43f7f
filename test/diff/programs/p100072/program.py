# seed 100072; dynamic_shapes: {'x': {0: Dim('d0', min=9, max=28), 1: DimHint(DYNAMIC)}, 'xs': [{0: Dim('s1', min=0, max=1024), 1: DimHint(STATIC)}, {0: DimHint(AUTO)}], 'f': None}
# families: cat, float, split, view; inputs: list wrong
def forward(self, x, xs, f):
    h = x
    h = torch.stack([h, h * 2], dim=0)
    h = h.chunk(3, dim=0)[0]
    h = torch.stack([h, h * 2], dim=0)
    return h
