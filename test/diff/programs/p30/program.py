# seed 30; dynamic_shapes: ({0: Dim('d0_0', min=0, max=9), 1: DimHint(AUTO), 2: DimHint(STATIC)},)
def forward(self, x):
    h = x
    h = h.flatten(1)
    h = h.relu()
    h = h.view(h.shape[0], -1)
    return h
