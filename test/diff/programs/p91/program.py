# seed 91; dynamic_shapes: ({0: DimHint(STATIC)}, {0: DimHint(STATIC)})
def forward(self, x, y):
    h = x
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h.narrow(-1, 0, 6)
    h = h[:4]
    h = h.unsqueeze(0)
    h = h.narrow(-1, 0, 3)
    return h
