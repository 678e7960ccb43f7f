# seed 1096; dynamic_shapes: ({0: Dim('s5', min=0, max=11), 1: DimHint(AUTO), 2: DimHint(AUTO)}, {'y': {0: DimHint(AUTO)}})
def forward(self, x, d):
    y = d["y"]
    h = x
    if h.shape[0] > 8:
        h = h + 1
    else:
        h = h - 1
    h = h + y
    return h
