# seed 232; dynamic_shapes: ({0: DimHint(DYNAMIC), 1: Dim('d0_1', min=0)},)
def forward(self, x):
    h = x
    h = h.narrow(-1, 0, 2)
    h = h.narrow(-1, 0, 2)
    return h
