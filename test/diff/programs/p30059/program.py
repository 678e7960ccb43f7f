# seed 30059; dynamic_shapes: ({0: DimHint(AUTO), 1: Dim('d0_1', max=1024), 2: DimHint(AUTO)}, {'y': {0: DimHint(STATIC), 1: DimHint(AUTO), 2: DimHint(AUTO)}})
def forward(self, x, d):
    y = d["y"]
    h = x
    u = (h > 0).sum().item()
    torch._check(u >= 0)
    torch._check(u <= h.shape[0])
    h = h[:u].sum(0) if h.dim() > 1 else h[:u].sum().reshape(1)
    h = h.flatten(1)
    h = h.reshape(-1)
    return h
