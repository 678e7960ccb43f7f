# seed 1084; dynamic_shapes: ({1: DimHint(AUTO), 2: DimHint(STATIC)}, {0: Dim('d1_0', max=1024), 1: Dim('s5', min=0, max=44)}, None)
def forward(self, x, y, n):
    h = x
    h = h.sum(-1)
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h.transpose(0, 1)
    h = h.flatten(1)
    h = h[:n]
    return h
