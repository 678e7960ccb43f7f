# seed 36; dynamic_shapes: ({1: DimHint(AUTO)},)
def forward(self, x):
    h = x
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h * 2
    h = h[:1]
    return h
