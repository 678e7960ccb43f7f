# seed 204; dynamic_shapes: ({0: DimHint(DYNAMIC), 1: DimHint(STATIC)}, {0: DimHint(STATIC)})
def forward(self, x, y):
    h = x
    if h.shape[0] > 8:
        h = h + 1
    else:
        h = h - 1
    if h.shape[0] > 8:
        h = h + 1
    else:
        h = h - 1
    h = h.narrow(-1, 0, 3)
    return h
