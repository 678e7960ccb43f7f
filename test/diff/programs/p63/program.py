# seed 63; dynamic_shapes: ({0: DimHint(STATIC)},)
def forward(self, x):
    h = x
    h = h.sum(-1)
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h * 0.5
    h = h * 2
    return h
