# seed 1066; dynamic_shapes: ({1: Dim('d0_1')}, {0: DimHint(STATIC)})
def forward(self, x, y):
    h = x
    h = h * 0.5
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h.reshape(-1)
    return h
