# seed 177; dynamic_shapes: ({0: DimHint(AUTO)}, {0: DimHint(AUTO)})
def forward(self, x, y):
    h = x
    h = h.relu()
    h = h + y
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h.narrow(-1, 0, 3)
    h = h[:1]
    return h
