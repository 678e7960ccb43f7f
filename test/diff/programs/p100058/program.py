# seed 100058; dynamic_shapes: {'x': {0: Dim('d0'), 1: Dim('d1', min=1)}, 'xs': [{0: DimHint(STATIC), 1: Dim('d2', min=1, max=39)}, {0: DimHint(AUTO)}]}
# families: cat, matmul; inputs: list
def forward(self, x, xs):
    h = x
    h = torch.cat([h, xs[0]], dim=0)
    h = h @ xs[0]
    h = h @ xs[0]
    return h
