# seed 30030; dynamic_shapes: ({0: DimHint(AUTO), 1: DimHint(AUTO)}, {'y': {0: DimHint(STATIC)}})
def forward(self, x, d):
    y = d["y"]
    h = x
    h = h.sum(-1)
    if h.shape[0] % 2 == 0:
        h = h * 3
    if h.shape[0] > 6:
        h = h + 1
    else:
        h = h - 1
    h = torch.cat([h, h], dim=0)
    return h
