# seed 30048; dynamic_shapes: ({0: Dim('d0_0', min=0, max=1024)}, {'y': None})
def forward(self, x, d):
    y = d["y"]
    h = x
    h = h + y
    torch._check(h.shape[0] != 2)
    h = h.reshape(-1)
    h = h * 2
    return h
