# seed 30002; dynamic_shapes: ({0: DimHint(STATIC)},)
def forward(self, x):
    h = x
    h = h[:2]
    u = (h > 0).sum().item()
    h = h[:u]
    h = h.relu()
    if h.shape[0] % 2 == 0:
        h = h * 3
    torch._check(h.shape[0] >= 2)
    return h
