# seed 1088; dynamic_shapes: ({0: Dim('s8', min=0, max=31), 1: DimHint(DYNAMIC), 2: Dim('s5', max=1024)}, {0: DimHint(AUTO), 1: DimHint(DYNAMIC)})
def forward(self, x, y):
    h = x
    if h.shape[0] > 1:
        h = h + 1
    else:
        h = h - 1
    h = h.transpose(0, 1)
    h = h.transpose(0, 1)
    return h
