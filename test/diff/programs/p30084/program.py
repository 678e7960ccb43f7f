# seed 30084; dynamic_shapes: ({0: DimHint(AUTO), 1: DimHint(STATIC)},)
def forward(self, x):
    h = x
    h = h.view(h.shape[0], -1)
    h = h.transpose(0, 1)
    return h
