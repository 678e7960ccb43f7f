# seed 254; dynamic_shapes: ({0: DimHint(AUTO), 1: DimHint(AUTO)}, {0: DimHint(STATIC)})
def forward(self, x, y):
    h = x
    h = h.reshape(-1)
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h.narrow(-1, 0, 6)
    h = h.unsqueeze(0)
    return h
