# seed 30024; dynamic_shapes: ({0: DimHint(DYNAMIC)},)
def forward(self, x):
    h = x
    u = (h > 0).sum().item()
    h = h[:u]
    if h.shape[0] > 0:
        h = h + 1
    return h
