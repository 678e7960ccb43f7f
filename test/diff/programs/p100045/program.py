# seed 100045; dynamic_shapes: {'x': {0: Dim('d0', min=1), 1: Dim('d1', min=1, max=1024), 2: DimHint(DYNAMIC)}, 'd': {'a': {0: r2 + 1}}, 'f': None}
# families: cat, float, if, split; inputs: dict wrong
def forward(self, x, d, f):
    h = x
    h = torch.split(h, 2, dim=1)[-1]
    h = h.split([1, h.shape[2] - 1], dim=2)[1]
    return h
