# seed 28; dynamic_shapes: ({0: DimHint(AUTO)}, {0: DimHint(AUTO)})
def forward(self, x, y):
    h = x
    h = h.narrow(-1, 0, 7)
    torch._check(h.shape[0] <= 7)
    if h.shape[0] > 3:
        h = h + 1
    else:
        h = h - 1
    h = h.narrow(-1, 0, 2)
    torch._check(h.shape[0] >= 1)
    return h
