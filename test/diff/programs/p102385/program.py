# seed 102385; dynamic_shapes: {'x': {0: Dim('d0', max=29), 1: DimHint(DYNAMIC)}, 'd': {'a': {0: Dim('s1', min=0, max=4096), 1: DimHint(AUTO)}}}
# families: check, matmul, pad; inputs: dict
def forward(self, x, d):
    h = x
    torch._check(h.shape[1] >= 2)
    h = h @ d['a']
    h = h @ self.w0
    h = h @ h.transpose(-1, -2)
    torch._check(h.shape[0] >= d['a'].shape[0])
    return h
