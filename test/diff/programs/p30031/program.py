# seed 30031; dynamic_shapes: ({0: Dim('d0_0')}, {0: DimHint(DYNAMIC)})
def forward(self, x, y):
    h = x
    u = (h > 0).sum().item()
    h = h[:u]
    torch._check(h.shape[0] != 1)
    if h.shape[0] > 1:
        h = h + 1
    torch._check(h.shape[0] >= 1)
    if h.shape[0] > 3:
        h = h + 1
    return h
