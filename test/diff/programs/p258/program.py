# seed 258; dynamic_shapes: ({0: DimHint(STATIC), 1: DimHint(DYNAMIC), 2: DimHint(STATIC)}, {0: DimHint(STATIC), 1: DimHint(AUTO), 2: DimHint(AUTO)})
def forward(self, x, y):
    h = x
    h = h + y
    h = torch.cat([h, h], dim=0)
    h = h.flatten(1)
    h = h.reshape(-1)
    return h
