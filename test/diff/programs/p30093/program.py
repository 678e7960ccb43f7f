# seed 30093; dynamic_shapes: ({0: DimHint(AUTO)}, {0: DimHint(AUTO)}, DimHint(AUTO))
def forward(self, x, y, n):
    h = x
    torch._check(h.shape[0] >= 1)
    h = h + y
    h = h[:1]
    h = h.relu()
    return h
