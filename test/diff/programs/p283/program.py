# seed 283; dynamic_shapes: ({0: Dim('s2', max=29), 1: DimHint(STATIC)},)
def forward(self, x):
    h = x
    h = h.unsqueeze(0)
    h = h @ self.w0
    h = h.view(h.shape[0], -1)
    torch._check(h.shape[0] >= 1)
    h = h[:1]
    return h
