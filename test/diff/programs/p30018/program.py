# seed 30018; dynamic_shapes: ({0: DimHint(DYNAMIC), 1: Dim('s6', min=1, max=8), 2: Dim('s2', max=21)}, None)
def forward(self, x, n):
    h = x
    h = h.narrow(-1, 0, 2)
    u = (h > 0).sum().item()
    h = h[:u]
    h = h * 2
    torch._check(h.shape[0] <= 8)
    return h
