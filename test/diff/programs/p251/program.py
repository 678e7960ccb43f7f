# seed 251; dynamic_shapes: ({0: DimHint(DYNAMIC)},)
def forward(self, x):
    h = x
    torch._check(h.shape[1] >= 2)
    h = h.flatten(1)
    torch._check(h.shape[1] >= 2)
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h[:5]
    return h
