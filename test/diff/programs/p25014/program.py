# seed 25014; dynamic_shapes: ({0: DimHint(STATIC), 1: Dim('d0_1', max=1024)}, {'y': {0: DimHint(AUTO)}})
def forward(self, x, d):
    y = d["y"]
    h = x
    h = h.reshape(-1)
    if h.shape[0] % 2 == 0:
        h = h * 3
    return h
