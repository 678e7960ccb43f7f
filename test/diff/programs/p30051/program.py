# seed 30051; dynamic_shapes: ({0: DimHint(STATIC)},)
def forward(self, x):
    h = x
    u = (h > 0).sum().item()
    h = h[:u]
    h = h * 2
    torch._check(h.shape[0] <= 0)
    h = h * 2
    return h
