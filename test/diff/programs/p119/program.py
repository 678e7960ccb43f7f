# seed 119; dynamic_shapes: ({1: DimHint(STATIC)},)
def forward(self, x):
    h = x
    h = h * 2
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h.view(h.shape[0], -1)
    h = h @ self.w0
    if h.shape[0] > 5:
        h = h + 1
    else:
        h = h - 1
    return h
