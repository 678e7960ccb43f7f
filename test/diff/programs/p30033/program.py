# seed 30033; dynamic_shapes: ({0: DimHint(AUTO)}, {0: Dim('d1_0', min=0)}, None)
def forward(self, x, y, n):
    h = x
    torch._check(h.shape[0] >= 6)
    h = h + y
    u = (h > 0).sum().item()
    h = h[:u]
    return h
