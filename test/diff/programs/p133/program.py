# seed 133; dynamic_shapes: ({1: DimHint(STATIC)}, {0: DimHint(AUTO)})
def forward(self, x, y):
    h = x
    if h.shape[0] > 5:
        h = h + 1
    else:
        h = h - 1
    h = h.transpose(0, 1)
    return h
