# seed 1051; dynamic_shapes: ({0: DimHint(STATIC)}, {0: Dim('s1', max=1024)}, None)
def forward(self, x, y, n):
    h = x
    h = h + y
    h = h * n + n
    h = h[:n]
    if h.shape[0] > 8:
        h = h + 1
    else:
        h = h - 1
    h = h @ self.w0
    return h
