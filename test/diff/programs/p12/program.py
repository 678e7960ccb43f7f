# seed 12; dynamic_shapes: ({1: Dim('s8', min=6, max=1024)},)
def forward(self, x):
    h = x
    if h.shape[0] > 7:
        h = h + 1
    else:
        h = h - 1
    h = h.relu()
    h = h.transpose(0, 1)
    h = h.sum(-1)
    return h
