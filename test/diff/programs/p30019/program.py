# seed 30019; dynamic_shapes: ({0: Dim('d0_0', min=1, max=1024)}, {'y': None})
def forward(self, x, d):
    y = d["y"]
    h = x
    h = h + y
    if h.shape[0] > 8:
        h = h + 1
    else:
        h = h - 1
    h = h * -1
    torch._check(h.shape[0] >= 1)
    return h
