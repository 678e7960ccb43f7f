# seed 123; dynamic_shapes: ({0: Dim('d0_0', min=1)}, {0: DimHint(DYNAMIC)})
def forward(self, x, y):
    h = x
    h = h + y
    h = h.reshape(-1)
    return h
