# seed 125; dynamic_shapes: ({0: DimHint(AUTO)},)
def forward(self, x):
    h = x
    h = h.narrow(-1, 0, 3)
    if h.shape[0] > 6:
        h = h + 1
    else:
        h = h - 1
    if h.shape[0] > 5:
        h = h + 1
    else:
        h = h - 1
    h = h.narrow(-1, 0, 3)
    return h
