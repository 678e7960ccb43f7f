# seed 87; dynamic_shapes: ({0: DimHint(AUTO)}, None)
def forward(self, x, y):
    h = x
    h = h.unsqueeze(0)
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h.sum(-1)
    h = h * 0.5
    return h
