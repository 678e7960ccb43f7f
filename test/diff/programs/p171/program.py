# seed 171; dynamic_shapes: ({0: DimHint(DYNAMIC), 1: DimHint(DYNAMIC), 2: DimHint(DYNAMIC)},)
def forward(self, x):
    h = x
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h @ self.w0
    h = h.view(h.shape[0], -1)
    h = h.flatten(1)
    h = h.transpose(0, 1)
    return h
