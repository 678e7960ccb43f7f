# seed 182; dynamic_shapes: ({1: DimHint(AUTO)}, {0: DimHint(AUTO)})
def forward(self, x, y):
    h = x
    if h.shape[0] > 5:
        h = h + 1
    else:
        h = h - 1
    h = h * -1
    h = h.narrow(-1, 0, 2)
    h = h.unsqueeze(0)
    return h
