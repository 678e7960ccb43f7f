# seed 95; dynamic_shapes: ({0: DimHint(AUTO), 2: DimHint(STATIC)},)
def forward(self, x):
    h = x
    h = h.sum(-1)
    h = h.relu()
    if h.shape[0] > 1:
        h = h + 1
    else:
        h = h - 1
    return h
