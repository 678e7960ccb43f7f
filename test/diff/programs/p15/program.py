# seed 15; dynamic_shapes: ({0: DimHint(AUTO)},)
def forward(self, x):
    h = x
    if h.shape[0] > 4:
        h = h + 1
    else:
        h = h - 1
    h = h.relu()
    return h
