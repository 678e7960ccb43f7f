# seed 44; dynamic_shapes: ({0: DimHint(AUTO), 1: DimHint(AUTO)},)
def forward(self, x):
    h = x
    if h.shape[0] > 7:
        h = h + 1
    else:
        h = h - 1
    torch._check(h.shape[1] >= 2)
    return h
