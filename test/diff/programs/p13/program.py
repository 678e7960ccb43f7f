# seed 13; dynamic_shapes: ({0: DimHint(DYNAMIC), 1: DimHint(DYNAMIC)},)
def forward(self, x):
    h = x
    h = h @ self.w0
    h = h @ self.w1
    h = h.narrow(-1, 0, 1)
    return h
