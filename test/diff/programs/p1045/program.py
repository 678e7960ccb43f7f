# seed 1045; dynamic_shapes: ({0: DimHint(DYNAMIC), 1: DimHint(DYNAMIC), 2: DimHint(AUTO)},)
def forward(self, x):
    h = x
    h = h.reshape(-1)
    h = h * 0.5
    if h.shape[0] > 6:
        h = h + 1
    else:
        h = h - 1
    h = h.unsqueeze(0)
    h = h.narrow(-1, 0, 127)
    return h
