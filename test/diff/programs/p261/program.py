# seed 261; dynamic_shapes: ({0: DimHint(STATIC), 1: DimHint(DYNAMIC)},)
def forward(self, x):
    h = x
    h = h.reshape(-1)
    if h.shape[0] > 5:
        h = h + 1
    else:
        h = h - 1
    h = h @ self.w0
    h = h @ self.w1
    return h
