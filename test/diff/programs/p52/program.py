# seed 52; dynamic_shapes: ({0: Dim('d0_0', min=0, max=24), 1: DimHint(AUTO)},)
def forward(self, x):
    h = x
    h = h.view(h.shape[0], -1)
    h = h.relu()
    if h.shape[0] % 2 == 0:
        h = h * 3
    if h.shape[0] > 3:
        h = h + 1
    else:
        h = h - 1
    return h
