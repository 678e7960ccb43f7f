# seed 124; dynamic_shapes: ({1: Dim('d0_1', min=0, max=36)}, {0: Dim('d1_0', min=0), 1: DimHint(AUTO)})
def forward(self, x, y):
    h = x
    h = h.sum(-1)
    if h.shape[0] > 7:
        h = h + 1
    else:
        h = h - 1
    return h
