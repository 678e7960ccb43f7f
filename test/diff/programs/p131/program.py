# seed 131; dynamic_shapes: ({0: Dim('s4', min=0, max=1024), 1: DimHint(AUTO)}, {0: DimHint(DYNAMIC)})
def forward(self, x, y):
    h = x
    h = h[:3]
    torch._check(h.shape[0] <= 3)
    return h
