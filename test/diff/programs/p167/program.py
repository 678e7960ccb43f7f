# seed 167; dynamic_shapes: ({0: DimHint(AUTO)}, {0: Dim('d1_0')})
def forward(self, x, y):
    h = x
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h.reshape(-1)
    return h
