# seed 23; dynamic_shapes: ({0: DimHint(AUTO), 1: DimHint(STATIC)},)
def forward(self, x):
    h = x
    h = h.view(h.shape[0], -1)
    h = h[:1]
    if h.shape[0] > 4:
        h = h + 1
    else:
        h = h - 1
    h = h.flatten(1)
    h = h.sum(-1)
    return h
