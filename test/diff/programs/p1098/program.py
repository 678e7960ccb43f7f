# seed 1098; dynamic_shapes: ({0: DimHint(DYNAMIC)},)
def forward(self, x):
    h = x
    torch._check(h.shape[0] >= 2)
    h = h[:3]
    h = h.reshape(-1)
    if h.shape[0] % 2 == 0:
        h = h * 3
    return h
