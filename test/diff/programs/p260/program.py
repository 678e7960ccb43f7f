# seed 260; dynamic_shapes: ({0: DimHint(STATIC)},)
def forward(self, x):
    h = x
    h = h * 0.5
    h = h.narrow(-1, 0, 1)
    if h.shape[0] % 2 == 0:
        h = h * 3
    if h.shape[0] % 2 == 0:
        h = h * 3
    return h
