# seed 1085; dynamic_shapes: ({0: DimHint(AUTO), 1: DimHint(AUTO), 2: DimHint(AUTO)},)
def forward(self, x):
    h = x
    h = torch.cat([h, h], dim=0)
    h = h * 2
    h = h.transpose(0, 1)
    if h.shape[0] > 2:
        h = h + 1
    else:
        h = h - 1
    return h
