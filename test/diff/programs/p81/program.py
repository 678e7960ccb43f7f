# seed 81; dynamic_shapes: ({0: Dim('d0_0', min=1), 2: DimHint(DYNAMIC)},)
def forward(self, x):
    h = x
    h = h.narrow(-1, 0, 1)
    if h.shape[0] > 3:
        h = h + 1
    else:
        h = h - 1
    h = h.sum(-1)
    h = h @ self.w0
    if h.shape[0] % 2 == 0:
        h = h * 3
    return h
