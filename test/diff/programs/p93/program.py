# seed 93; dynamic_shapes: ({0: Dim('s6', min=0, max=43)}, {0: Dim('d1_0', min=0), 1: DimHint(AUTO)})
def forward(self, x, y):
    h = x
    torch._check(h.shape[0] != 2)
    if h.shape[0] % 2 == 0:
        h = h * 3
    torch._check(h.shape[1] >= 4)
    if h.shape[0] > 4:
        h = h + 1
    else:
        h = h - 1
    h = h.flatten(1)
    return h
