# seed 48; dynamic_shapes: ({0: DimHint(AUTO), 1: Dim('s3', min=0, max=1024), 2: DimHint(DYNAMIC)},)
def forward(self, x):
    h = x
    h = h.reshape(-1)
    h = h.reshape(-1)
    torch._check(h.shape[0] >= 72)
    if h.shape[0] % 2 == 0:
        h = h * 3
    return h
