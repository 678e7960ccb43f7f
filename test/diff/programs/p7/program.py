# seed 7; dynamic_shapes: ({0: DimHint(AUTO), 1: DimHint(STATIC)},)
def forward(self, x):
    h = x
    h = h.narrow(-1, 0, 5)
    h = h * 0.5
    return h
