# seed 1029; dynamic_shapes: ({0: Dim('d0_0', min=1, max=1024), 1: Dim('s8', min=1, max=40), 2: DimHint(AUTO)},)
def forward(self, x):
    h = x
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h.flatten(1)
    h = h.reshape(-1)
    h = h @ self.w0
    h = h * 0.5
    return h
