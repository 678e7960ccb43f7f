# seed 112; dynamic_shapes: ({0: DimHint(STATIC), 1: Dim('s6', min=0, max=1024)},)
def forward(self, x):
    h = x
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h.view(h.shape[0], -1)
    h = h.reshape(-1)
    if h.shape[0] % 2 == 0:
        h = h * 3
    if h.shape[0] > 6:
        h = h + 1
    else:
        h = h - 1
    return h
