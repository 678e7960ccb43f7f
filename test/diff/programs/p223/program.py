# seed 223; dynamic_shapes: ({0: DimHint(AUTO), 1: DimHint(AUTO)}, {0: DimHint(AUTO), 1: Dim('d1_1', min=1, max=22)})
def forward(self, x, y):
    h = x
    h = h.sum(-1)
    if h.shape[0] % 2 == 0:
        h = h * 3
    return h
