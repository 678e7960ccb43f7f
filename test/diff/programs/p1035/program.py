# seed 1035; dynamic_shapes: ({0: Dim('d0_0'), 2: DimHint(AUTO)}, {0: DimHint(STATIC), 1: DimHint(AUTO), 2: DimHint(DYNAMIC)}, None)
def forward(self, x, y, n):
    h = x
    h = h.flatten(1)
    h = h.transpose(0, 1)
    h = h.reshape(-1)
    h = h * n + n
    return h
