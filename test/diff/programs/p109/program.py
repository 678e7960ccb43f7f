# seed 109; dynamic_shapes: ({0: DimHint(DYNAMIC)}, {0: Dim('d1_0', min=0), 1: DimHint(AUTO)})
def forward(self, x, y):
    h = x
    h = h.narrow(-1, 0, 1)
    h = h.reshape(-1)
    if h.shape[0] % 2 == 0:
        h = h * 3
    return h
