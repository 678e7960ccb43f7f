# seed 126; dynamic_shapes: ({1: DimHint(DYNAMIC), 2: Dim('d0_2', min=0, max=37)}, {0: DimHint(AUTO)})
def forward(self, x, y):
    h = x
    h = h.flatten(1)
    if h.shape[0] > 3:
        h = h + 1
    else:
        h = h - 1
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h @ self.w0
    h = h * -1
    return h
