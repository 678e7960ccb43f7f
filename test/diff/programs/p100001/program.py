# seed 100001; dynamic_shapes: {'x': {0: DimHint(AUTO), 1: r0 - 1}, 'y': {0: DimHint(AUTO), 1: DimHint(AUTO)}}
# families: cat, matmul, pad, repeat; inputs: y
def forward(self, x, y):
    h = x
    h = h.tile((2,))
    h = h @ h.transpose(-1, -2)
    h = h.tile((2,))
    return h
