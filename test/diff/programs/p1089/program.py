# seed 1089; dynamic_shapes: ({0: DimHint(AUTO), 1: DimHint(AUTO)},)
def forward(self, x):
    h = x
    h = h.reshape(-1)
    h = h * 2
    return h
