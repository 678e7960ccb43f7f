# seed 1011; dynamic_shapes: ({0: Dim('d0_0', max=11), 1: DimHint(STATIC)}, {'y': {0: DimHint(AUTO)}})
def forward(self, x, d):
    y = d["y"]
    h = x
    h = h.unsqueeze(0)
    h = h.view(h.shape[0], -1)
    return h
