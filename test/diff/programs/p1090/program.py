# seed 1090; dynamic_shapes: ({0: DimHint(DYNAMIC)}, {0: DimHint(AUTO), 1: DimHint(AUTO)}, DimHint(DYNAMIC))
def forward(self, x, y, n):
    h = x
    h = h * n + n
    torch._check(h.shape[1] != 4)
    h = h + y
    h = h.unsqueeze(0)
    return h
