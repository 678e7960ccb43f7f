# seed 1044; dynamic_shapes: ({0: Dim('d0_0', min=0)}, {'y': None})
def forward(self, x, d):
    y = d["y"]
    h = x
    if h.shape[0] > 9:
        h = h + 1
    else:
        h = h - 1
    torch._check(h.shape[0] >= 2)
    u = (h > 0).sum().item()
    torch._check(u >= 0)
    torch._check(u <= h.shape[0])
    h = h[:u].sum(0) if h.dim() > 1 else h[:u].sum().reshape(1)
    return h
