# seed 136; dynamic_shapes: ({0: DimHint(AUTO), 1: DimHint(STATIC), 2: DimHint(STATIC)}, {1: Dim('d1_1', max=1024), 2: DimHint(AUTO)})
def forward(self, x, y):
    h = x
    h = h + y
    h = h.relu()
    return h
