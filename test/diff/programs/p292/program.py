# seed 292; dynamic_shapes: ({0: DimHint(DYNAMIC)}, {0: DimHint(STATIC)})
def forward(self, x, y):
    h = x
    h = h + y
    torch._check(h.shape[0] >= 2)
    h = h.relu()
    h = h.narrow(-1, 0, 4)
    return h
