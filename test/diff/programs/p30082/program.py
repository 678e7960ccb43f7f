# seed 30082; dynamic_shapes: ({0: DimHint(AUTO), 1: DimHint(AUTO)},)
def forward(self, x):
    h = x
    if h.shape[0] > 6:
        h = h + 1
    else:
        h = h - 1
    u = (h > 0).sum().item()
    h = h[:u]
    return h
