# seed 294; dynamic_shapes: ({0: Dim('d0_0')}, {0: DimHint(STATIC)})
def forward(self, x, y):
    h = x
    h = h + y
    h = h.narrow(-1, 0, 2)
    return h
