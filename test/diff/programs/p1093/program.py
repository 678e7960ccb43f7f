# seed 1093; dynamic_shapes: ({0: Dim('d0_0', min=0)}, {0: DimHint(STATIC)})
def forward(self, x, y):
    h = x
    if h.shape[0] > 9:
        h = h + 1
    else:
        h = h - 1
    h = h.flatten(1)
    h = h.reshape(-1)
    return h
