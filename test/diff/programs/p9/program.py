# seed 9; dynamic_shapes: ({0: Dim('s6'), 1: DimHint(STATIC)}, {0: DimHint(AUTO), 1: DimHint(AUTO)})
def forward(self, x, y):
    h = x
    if h.shape[0] > 6:
        h = h + 1
    else:
        h = h - 1
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h * -1
    h = torch.cat([h, h], dim=0)
    h = h + y
    return h
