# seed 30081; dynamic_shapes: ({0: Dim('d0_0', min=0), 1: DimHint(STATIC), 2: DimHint(DYNAMIC)}, {'y': {0: Dim('s4', min=1, max=39)}}, DimHint(DYNAMIC))
def forward(self, x, d, n):
    y = d["y"]
    h = x
    h = h[:n]
    h = h[:3]
    h = h * n + n
    torch._check(h.shape[1] >= 2)
    return h
