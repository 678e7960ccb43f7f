# seed 30056; dynamic_shapes: ({0: DimHint(DYNAMIC)}, DimHint(AUTO))
def forward(self, x, n):
    h = x
    h = h[:1]
    h = h.unsqueeze(0)
    torch._check(h.shape[0] >= 1)
    h = h * n + n
    return h
