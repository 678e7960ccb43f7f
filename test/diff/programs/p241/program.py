# seed 241; dynamic_shapes: ({0: Dim('d0_0', min=0), 1: DimHint(STATIC), 2: DimHint(STATIC)},)
def forward(self, x):
    h = x
    torch._check(h.shape[2] <= 4)
    h = h.narrow(-1, 0, 3)
    return h
