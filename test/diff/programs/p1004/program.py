# seed 1004; dynamic_shapes: ({0: DimHint(AUTO), 1: DimHint(STATIC)},)
def forward(self, x):
    h = x
    h = h.reshape(-1)
    torch._check(h.shape[0] != 2)
    if h.shape[0] > 6:
        h = h + 1
    else:
        h = h - 1
    return h
