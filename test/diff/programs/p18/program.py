# seed 18; dynamic_shapes: ({0: Dim('s2', min=1, max=14)},)
def forward(self, x):
    h = x
    torch._check(h.shape[0] != 1)
    h = h.unsqueeze(0)
    if h.shape[0] > 8:
        h = h + 1
    else:
        h = h - 1
    h = h.flatten(1)
    return h
