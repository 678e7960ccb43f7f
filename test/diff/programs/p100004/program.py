# seed 100004; dynamic_shapes: {'x': {0: DimHint(AUTO), 1: r0 + 2, 2: Dim('d1', min=7, max=46)}, 'xs': ({0: Dim('d2', min=1, max=3), 1: Dim('d3', min=5, max=29)}, {0: Dim('d4', max=1024)})}
# families: if, matmul; inputs: tuple wrong
def forward(self, x, xs):
    h = x
    h = h @ self.w0
    if h.shape[2] == xs[0].shape[0]:
        h = h * 2
    if h.numel() > 8:
        h = h.relu()
    return h
