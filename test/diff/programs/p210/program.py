# seed 210; dynamic_shapes: ({0: DimHint(AUTO), 1: DimHint(AUTO)},)
def forward(self, x):
    h = x
    if h.shape[0] % 2 == 0:
        h = h * 3
    if h.shape[0] > 1:
        h = h + 1
    else:
        h = h - 1
    h = h @ self.w0
    torch._check(h.shape[0] >= 2)
    h = h[:1]
    return h
