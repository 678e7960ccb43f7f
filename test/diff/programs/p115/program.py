# seed 115; dynamic_shapes: ({0: Dim('d0_0', max=1024), 1: DimHint(DYNAMIC)},)
def forward(self, x):
    h = x
    h = h.reshape(-1)
    h = h.reshape(-1)
    h = h[:3]
    if h.shape[0] % 2 == 0:
        h = h * 3
    return h
