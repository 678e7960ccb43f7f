# seed 102189; dynamic_shapes: {'x': {0: DimHint(AUTO), 1: DimHint(STATIC), 2: Dim('s0', min=0, max=1024)}, 'y': {0: Dim('d1', min=7, max=10), 1: DimHint(AUTO)}}
# families: cat, check, expand, if, split; inputs: y
def forward(self, x, y):
    h = x
    if h.shape[1] == y.shape[0]:
        h = h * 2
    h = torch.stack([h, h * 2], dim=0)
    if h.shape[3] == y.shape[0]:
        h = h * 2
    torch._check(h.shape[3] % 2 == 0)
    h = torch.cat([h, h[:1]], dim=0)
    return h
