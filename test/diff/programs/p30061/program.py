# seed 30061; dynamic_shapes: ({0: DimHint(AUTO), 1: Dim('s2', min=1, max=1024), 2: DimHint(AUTO)},)
def forward(self, x):
    h = x
    h = h[:2]
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h.sum(-1)
    return h
