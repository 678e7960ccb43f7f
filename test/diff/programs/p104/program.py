# seed 104; dynamic_shapes: ({0: DimHint(DYNAMIC)},)
def forward(self, x):
    h = x
    h = h @ self.w0
    h = h.relu()
    if h.shape[0] > 1:
        h = h + 1
    else:
        h = h - 1
    return h
