# seed 31; dynamic_shapes: ({0: DimHint(STATIC)}, {0: DimHint(DYNAMIC)})
def forward(self, x, y):
    h = x
    if h.shape[0] > 2:
        h = h + 1
    else:
        h = h - 1
    h = torch.cat([h, h], dim=0)
    return h
