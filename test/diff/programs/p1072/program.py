# seed 1072; dynamic_shapes: ({0: Dim('d0_0', min=3, max=44), 1: Dim('s2', min=0, max=22)},)
def forward(self, x):
    h = x
    h = h.sum(-1)
    if h.shape[0] > 2:
        h = h + 1
    else:
        h = h - 1
    return h
