# seed 1014; dynamic_shapes: ({0: Dim('d0_0'), 1: DimHint(DYNAMIC), 2: DimHint(STATIC)}, {0: DimHint(AUTO)}, DimHint(DYNAMIC))
def forward(self, x, y, n):
    h = x
    torch._check(h.shape[0] >= 2)
    h = h.flatten(1)
    h = h * n + n
    h = h.flatten(1)
    h = h.unsqueeze(0)
    return h
