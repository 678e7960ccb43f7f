# seed 1082; dynamic_shapes: ({0: DimHint(AUTO)},)
def forward(self, x):
    h = x
    h = h.relu()
    h = h * 0.5
    if h.shape[0] > 1:
        h = h + 1
    else:
        h = h - 1
    if h.shape[0] > 8:
        h = h + 1
    else:
        h = h - 1
    return h
