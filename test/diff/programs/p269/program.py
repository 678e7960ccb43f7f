# seed 269; dynamic_shapes: ({0: DimHint(AUTO)},)
def forward(self, x):
    h = x
    torch._check(h.shape[0] != 1)
    h = h.reshape(-1)
    h = h * 2
    if h.shape[0] % 2 == 0:
        h = h * 3
    return h
