# seed 1068; dynamic_shapes: ({0: DimHint(AUTO), 1: DimHint(AUTO)}, {'y': {0: Dim('d1_0', max=1024)}})
def forward(self, x, d):
    y = d["y"]
    h = x
    h = h.view(h.shape[0], -1)
    if h.shape[0] > 6:
        h = h + 1
    else:
        h = h - 1
    h = h * -1
    h = h + y
    h = torch.cat([h, h], dim=0)
    return h
