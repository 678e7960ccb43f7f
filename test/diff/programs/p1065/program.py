# seed 1065; dynamic_shapes: ({0: Dim('d0_0', min=1, max=10), 1: DimHint(STATIC), 2: DimHint(DYNAMIC)}, DimHint(DYNAMIC))
def forward(self, x, n):
    h = x
    h = h * n + n
    h = h.flatten(1)
    h = h.transpose(0, 1)
    return h
