# seed 193; dynamic_shapes: ({0: DimHint(STATIC), 1: DimHint(STATIC), 2: Dim('s4', max=39)},)
def forward(self, x):
    h = x
    h = h.relu()
    h = h.flatten(1)
    if h.shape[0] > 8:
        h = h + 1
    else:
        h = h - 1
    return h
