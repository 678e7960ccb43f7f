# seed 110; dynamic_shapes: ({0: DimHint(AUTO), 1: DimHint(AUTO)}, {0: DimHint(AUTO)})
def forward(self, x, y):
    h = x
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h @ self.w0
    return h
