# seed 1047; dynamic_shapes: ({0: DimHint(AUTO)}, {'y': {0: Dim('d1_0', max=1024)}}, DimHint(DYNAMIC))
def forward(self, x, d, n):
    y = d["y"]
    h = x
    u = (h > 0).sum().item()
    torch._check(u >= 0)
    torch._check(u <= h.shape[0])
    h = h[:u].sum(0) if h.dim() > 1 else h[:u].sum().reshape(1)
    u = (h > 0).sum().item()
    torch._check(u >= 0)
    torch._check(u <= h.shape[0])
    h = h[:u].sum(0) if h.dim() > 1 else h[:u].sum().reshape(1)
    return h
