# seed 179; dynamic_shapes: ({0: DimHint(AUTO)},)
def forward(self, x):
    h = x
    h = h.reshape(-1)
    h = h[:1]
    return h
