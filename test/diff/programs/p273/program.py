# seed 273; dynamic_shapes: ({0: DimHint(STATIC)},)
def forward(self, x):
    h = x
    h = h[:6]
    h = h.narrow(-1, 0, 5)
    h = h[:2]
    return h
