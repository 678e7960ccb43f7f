# seed 205; dynamic_shapes: ({0: DimHint(STATIC), 1: DimHint(DYNAMIC)}, {0: DimHint(STATIC)})
def forward(self, x, y):
    h = x
    h = h.narrow(-1, 0, 3)
    h = h * 2
    h = h.unsqueeze(0)
    return h
