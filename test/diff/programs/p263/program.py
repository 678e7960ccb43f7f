# seed 263; dynamic_shapes: ({0: DimHint(AUTO), 2: Dim('d0_2', min=4, max=15)},)
def forward(self, x):
    h = x
    h = h.unsqueeze(0)
    h = h.flatten(1)
    if h.shape[0] > 8:
        h = h + 1
    else:
        h = h - 1
    h = h.sum(-1)
    h = h.relu()
    return h
