# seed 89; dynamic_shapes: ({0: DimHint(DYNAMIC)},)
def forward(self, x):
    h = x
    if h.shape[0] > 6:
        h = h + 1
    else:
        h = h - 1
    h = h * 2
    h = h @ self.w0
    torch._check(h.shape[0] >= 3)
    return h
