# seed 69; dynamic_shapes: ({0: Dim('s2', min=0, max=28), 1: DimHint(AUTO), 2: Dim('d0_2', min=1)}, {0: DimHint(DYNAMIC)})
def forward(self, x, y):
    h = x
    h = h.unsqueeze(0)
    h = h @ self.w0
    h = h.narrow(-1, 0, 3)
    if h.shape[0] % 2 == 0:
        h = h * 3
    if h.shape[0] % 2 == 0:
        h = h * 3
    return h
