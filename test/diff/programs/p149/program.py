# seed 149; dynamic_shapes: ({0: Dim('d0_0', min=0, max=5)}, {0: DimHint(AUTO)})
def forward(self, x, y):
    h = x
    h = h.narrow(-1, 0, 1)
    h = h.narrow(-1, 0, 1)
    return h
