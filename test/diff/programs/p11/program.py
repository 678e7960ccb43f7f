# seed 11; dynamic_shapes: ({0: Dim('d0_0', max=1024), 1: DimHint(DYNAMIC)}, {0: DimHint(AUTO), 1: DimHint(AUTO)})
def forward(self, x, y):
    h = x
    torch._check(h.shape[1] >= 4)
    if h.shape[0] > 9:
        h = h + 1
    else:
        h = h - 1
    h = h * -1
    return h
