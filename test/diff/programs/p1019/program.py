# seed 1019; dynamic_shapes: ({0: Dim('d0_0', min=0, max=15)}, {'y': None})
def forward(self, x, d):
    y = d["y"]
    h = x
    h = h.narrow(-1, 0, 4)
    h = h + y
    h = h[:2]
    torch._check(h.shape[0] <= 2)
    return h
