# seed 30072; dynamic_shapes: ({0: DimHint(AUTO), 1: DimHint(AUTO), 2: DimHint(AUTO)},)
def forward(self, x):
    h = x
    h = h[h > 0]
    h = h * 2
    return h
