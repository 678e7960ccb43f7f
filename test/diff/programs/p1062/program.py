# seed 1062; dynamic_shapes: ({0: Dim('d0_0', max=1024)}, {'y': {0: Dim('d1_0', min=1, max=1024)}}, None)
def forward(self, x, d, n):
    y = d["y"]
    h = x
    if h.shape[0] > 7:
        h = h + 1
    else:
        h = h - 1
    h = h.reshape(-1)
    return h
