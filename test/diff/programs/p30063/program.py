# seed 30063; dynamic_shapes: ({0: DimHint(AUTO), 1: Dim('d0_1'), 2: DimHint(DYNAMIC)},)
def forward(self, x):
    h = x
    u = (h > 0).sum().item()
    h = h[:u]
    torch._check(h.shape[0] >= 0)
    h = h.relu()
    h = h * 2
    h = h.relu()
    return h
