# seed 30075; dynamic_shapes: ({1: DimHint(STATIC), 2: DimHint(DYNAMIC)},)
def forward(self, x):
    h = x
    u = (h > 0).sum().item()
    h = h[:u]
    if h.shape[0] > 3:
        h = h + 1
    torch._check(h.shape[0] >= 1)
    h = h @ self.w0
    return h
