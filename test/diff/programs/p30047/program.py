# seed 30047; dynamic_shapes: ({0: Dim('d0_0', min=1, max=6), 1: Dim('d0_1', min=1, max=39)}, {0: Dim('d1_0', min=0, max=13), 1: DimHint(STATIC)})
def forward(self, x, y):
    h = x
    h = h.sum(-1)
    u = (h > 0).sum().item()
    h = h.narrow(0, 0, u)
    h = h * 2
    return h
