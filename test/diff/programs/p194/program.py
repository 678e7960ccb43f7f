# seed 194; dynamic_shapes: ({0: Dim('d0_0', min=0, max=1024), 1: DimHint(STATIC), 2: DimHint(AUTO)}, {0: DimHint(DYNAMIC), 1: Dim('d1_1')})
def forward(self, x, y):
    h = x
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h @ self.w0
    h = h.transpose(0, 1)
    if h.shape[0] > 2:
        h = h + 1
    else:
        h = h - 1
    h = h @ self.w1
    return h
