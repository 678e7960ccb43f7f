# seed 1049; dynamic_shapes: ({0: DimHint(AUTO), 1: DimHint(STATIC), 2: DimHint(STATIC)}, None)
def forward(self, x, n):
    h = x
    h = h.transpose(0, 1)
    h = h * 2
    if h.shape[0] > 2:
        h = h + 1
    else:
        h = h - 1
    h = torch.cat([h, h], dim=0)
    return h
