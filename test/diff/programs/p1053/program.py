# seed 1053; dynamic_shapes: ({0: DimHint(AUTO), 1: DimHint(STATIC)},)
def forward(self, x):
    h = x
    h = torch.cat([h, h], dim=0)
    h = h.transpose(0, 1)
    h = h.reshape(-1)
    h = h * -1
    if h.shape[0] > 8:
        h = h + 1
    else:
        h = h - 1
    return h
