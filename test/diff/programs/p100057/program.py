# seed 100057; dynamic_shapes: {'x': {0: DimHint(AUTO)}, 'xs': ({0: DimHint(AUTO), 1: r0 + 2}, {0: Dim('s1', min=0, max=4096)}), 'n': DimHint(DYNAMIC), 'f': None}
# families: float, int, matmul, repeat, slice; inputs: tuple
def forward(self, x, xs, n, f):
    h = x
    h = h * f
    h = h.repeat(n)
    h = h @ self.w0
    return h
