# seed 213; dynamic_shapes: ({0: DimHint(STATIC)}, None)
def forward(self, x, y):
    h = x
    if h.shape[0] > 6:
        h = h + 1
    else:
        h = h - 1
    h = h + y
    h = h.reshape(-1)
    return h
