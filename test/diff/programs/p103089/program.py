# seed 103089; dynamic_shapes: {'x': {0: Dim('s0', min=0, max=4096), 1: DimHint(DYNAMIC), 2: DimHint(AUTO)}, 'xs': [{0: DimHint(STATIC), 1: Dim('d1', max=28)}, {0: 2*r2}]}
# families: matmul, pad, repeat, view; inputs: list
def forward(self, x, xs):
    h = x
    h = torch.nn.functional.pad(h, (1, 1))
    h = h.tile((2,))
    return h
