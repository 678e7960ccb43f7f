# seed 1017; dynamic_shapes: ({0: Dim('s8', min=0), 1: Dim('s5', min=1)}, {0: DimHint(AUTO), 1: DimHint(DYNAMIC)}, DimHint(DYNAMIC))
def forward(self, x, y, n):
    h = x
    h = h * n + n
    h = h.reshape(-1)
    h = h.narrow(-1, 0, 22)
    h = h[:18]
    h = h * n + n
    return h
