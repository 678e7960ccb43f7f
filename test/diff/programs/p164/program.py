# seed 164; dynamic_shapes: ({0: Dim('d0_0', min=0, max=1024)}, {0: DimHint(AUTO)})
def forward(self, x, y):
    h = x
    h = h * 2
    h = h + y
    h = h @ self.w0
    h = h.narrow(-1, 0, 1)
    if h.shape[0] > 5:
        h = h + 1
    else:
        h = h - 1
    return h
