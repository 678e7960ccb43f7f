# seed 103184; dynamic_shapes: {'x': {0: DimHint(STATIC), 1: DimHint(DYNAMIC)}, 'xs': ({0: DimHint(DYNAMIC), 1: Dim('d0', min=0, max=16)}, {0: 2*r1}), 'f': None}
# families: cat, expand, float, if, slice; inputs: tuple
def forward(self, x, xs, f):
    h = x
    h = h * f
    h = torch.cat([h, xs[0]], dim=0)
    h = h + f * 2
    return h
