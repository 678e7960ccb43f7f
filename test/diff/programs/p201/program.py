# seed 201; dynamic_shapes: ({0: Dim('s8', min=0, max=44)}, {0: DimHint(AUTO)})
def forward(self, x, y):
    h = x
    h = h.narrow(-1, 0, 8)
    h = h @ self.w0
    h = h[:2]
    if h.shape[0] % 2 == 0:
        h = h * 3
    return h
