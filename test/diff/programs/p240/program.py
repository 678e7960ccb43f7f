# seed 240; dynamic_shapes: ({0: DimHint(DYNAMIC), 1: DimHint(STATIC), 2: DimHint(STATIC)}, {0: DimHint(AUTO)})
def forward(self, x, y):
    h = x
    h = h * 0.5
    torch._check(h.shape[0] <= 2)
    h = h.unsqueeze(0)
    h = h.view(h.shape[0], -1)
    return h
