# seed 30073; dynamic_shapes: ({0: Dim('d0_0', min=1, max=1024), 1: DimHint(AUTO)}, {0: DimHint(STATIC)}, DimHint(DYNAMIC))
def forward(self, x, y, n):
    h = x
    h = h.sum(-1)
    h = h * n + n
    h = h + y
    return h
