# seed 30022; dynamic_shapes: ({0: DimHint(AUTO), 1: Dim('s5', min=1), 2: Dim('d0_2', min=0)}, {'y': {0: DimHint(STATIC), 1: Dim('d1_1', max=1024), 2: Dim('d1_2', min=0, max=25)}})
def forward(self, x, d):
    y = d["y"]
    h = x
    h = h + y
    h = h @ self.w0
    h = h.view(h.shape[0], -1)
    h = h.narrow(-1, 0, 11)
    return h
