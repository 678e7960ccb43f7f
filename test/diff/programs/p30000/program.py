# seed 30000; dynamic_shapes: ({0: DimHint(AUTO)}, DimHint(DYNAMIC))
def forward(self, x, n):
    h = x
    u = (h > 0).sum().item()
    h = h[:u]
    if h.shape[0] > 0:
        h = h + 1
    h = h * 2
    torch._check(h.shape[0] != 1)
    return h
