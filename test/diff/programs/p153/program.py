# seed 153; dynamic_shapes: ({0: DimHint(STATIC), 1: DimHint(STATIC)}, {0: DimHint(STATIC)})
def forward(self, x, y):
    h = x
    h = h @ self.w0
    h = h.narrow(-1, 0, 3)
    h = h.sum(-1)
    h = h.unsqueeze(0)
    return h
