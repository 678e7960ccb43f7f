# seed 1015; dynamic_shapes: ({0: DimHint(AUTO)},)
def forward(self, x):
    h = x
    h = h[:2]
    h = h.narrow(-1, 0, 2)
    h = h.unsqueeze(0)
    h = h.unsqueeze(0)
    if h.shape[0] % 2 == 0:
        h = h * 3
    return h
