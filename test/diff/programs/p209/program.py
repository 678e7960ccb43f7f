# seed 209; dynamic_shapes: ({0: Dim('d0_0', min=1), 2: DimHint(AUTO)},)
def forward(self, x):
    h = x
    h = h * -1
    h = h @ self.w0
    h = h * 0.5
    if h.shape[0] > 4:
        h = h + 1
    else:
        h = h - 1
    return h
