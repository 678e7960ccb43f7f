# seed 71; dynamic_shapes: ({0: DimHint(STATIC), 1: DimHint(AUTO)},)
def forward(self, x):
    h = x
    if h.shape[0] > 4:
        h = h + 1
    else:
        h = h - 1
    h = h.flatten(1)
    h = h * 2
    h = h[:1]
    return h
