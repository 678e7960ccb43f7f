# seed 30038; dynamic_shapes: ({0: Dim('d0_0', min=0), 1: DimHint(AUTO), 2: Dim('d0_2', min=0, max=1024)}, DimHint(DYNAMIC))
def forward(self, x, n):
    h = x
    h = h[:1]
    h = h @ self.w0
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h.sum(-1)
    h = h.transpose(0, 1)
    return h
