# seed 158; dynamic_shapes: ({1: DimHint(AUTO), 2: DimHint(AUTO)}, {0: DimHint(AUTO)})
def forward(self, x, y):
    h = x
    if h.shape[0] > 2:
        h = h + 1
    else:
        h = h - 1
    h = h.relu()
    return h
