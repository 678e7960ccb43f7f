# seed 30089; dynamic_shapes: ({0: DimHint(AUTO)}, {0: DimHint(AUTO)}, DimHint(DYNAMIC))
def forward(self, x, y, n):
    h = x
    h = h + y
    u = (h > 0).sum().item()
    h = h.narrow(0, 0, u)
    if h.shape[0] % 2 == 0:
        h = h * 3
    return h
