# seed 114; dynamic_shapes: (None, {0: DimHint(AUTO)})
def forward(self, x, y):
    h = x
    if h.shape[0] > 9:
        h = h + 1
    else:
        h = h - 1
    h = torch.cat([h, h], dim=0)
    return h
