# seed 1059; dynamic_shapes: ({0: DimHint(AUTO)}, DimHint(AUTO))
def forward(self, x, n):
    h = x
    h = h * -1
    if h.shape[0] % 2 == 0:
        h = h * 3
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h.relu()
    return h
