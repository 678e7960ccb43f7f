# seed 203; dynamic_shapes: ({0: DimHint(AUTO)},)
def forward(self, x):
    h = x
    h = h.relu()
    h = h.narrow(-1, 0, 2)
    h = h.narrow(-1, 0, 1)
    return h
