# seed 100040; dynamic_shapes: {'x': {0: DimHint(AUTO), 2: DimHint(AUTO)}, 'y': {0: DimHint(DYNAMIC)}}
# families: check, repeat, view; inputs: y
def forward(self, x, y):
    h = x
    h = h.repeat(y.shape[0], 1, 1)
    h = h.tile((2,))
    torch._check(h.shape[2] != 7)
    return h
