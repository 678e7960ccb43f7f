# seed 30068; dynamic_shapes: ({0: DimHint(AUTO)},)
def forward(self, x):
    h = x
    if h.shape[0] % 2 == 0:
        h = h * 3
    u = (h > 0).sum().item()
    torch._check(u >= 0)
    torch._check(u <= h.shape[0])
    h = h[:u].sum(0) if h.dim() > 1 else h[:u].sum().reshape(1)
    if h.shape[0] > 6:
        h = h + 1
    else:
        h = h - 1
    return h
