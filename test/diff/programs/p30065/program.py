# seed 30065; dynamic_shapes: ({0: Dim('s4', max=1024), 1: DimHint(AUTO)}, {'y': {0: DimHint(DYNAMIC)}}, None)
def forward(self, x, d, n):
    y = d["y"]
    h = x
    torch._check(h.shape[1] <= 4)
    h = h.reshape(-1)
    if h.shape[0] > 2:
        h = h + 1
    else:
        h = h - 1
    return h
