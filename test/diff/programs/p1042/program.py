# seed 1042; dynamic_shapes: (None, {0: DimHint(AUTO)})
def forward(self, x, y):
    h = x
    h = h[:1]
    h = h + y
    if h.shape[0] % 2 == 0:
        h = h * 3
    if h.shape[0] > 9:
        h = h + 1
    else:
        h = h - 1
    h = h.unsqueeze(0)
    return h
