# seed 30041; dynamic_shapes: ({0: DimHint(AUTO), 1: DimHint(AUTO), 2: Dim('d0_2')}, {0: DimHint(AUTO), 1: DimHint(AUTO)})
def forward(self, x, y):
    h = x
    h = h.sum(-1)
    h = h[h > 0]
    torch._check(h.shape[0] != 1)
    torch._check(h.shape[0] <= 0)
    if h.shape[0] % 2 == 0:
        h = h * 3
    return h
