# seed 1037; dynamic_shapes: ({0: DimHint(DYNAMIC)},)
def forward(self, x):
    h = x
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h[:2]
    if h.shape[0] % 2 == 0:
        h = h * 3
    if h.shape[0] > 1:
        h = h + 1
    else:
        h = h - 1
    return h
