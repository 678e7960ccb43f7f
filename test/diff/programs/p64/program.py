# seed 64; dynamic_shapes: ({0: Dim('s2', min=0), 1: Dim('d0_1', min=0)},)
def forward(self, x):
    h = x
    torch._check(h.shape[1] >= 8)
    h = h * 0.5
    return h
