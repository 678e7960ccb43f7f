# seed 34; dynamic_shapes: ({0: Dim('d0_0', min=0, max=31), 1: Dim('d0_1', min=0, max=1024), 2: DimHint(DYNAMIC)},)
def forward(self, x):
    h = x
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h.view(h.shape[0], -1)
    return h
