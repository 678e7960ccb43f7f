# seed 79; dynamic_shapes: ({0: Dim('d0_0', max=1024)}, {0: DimHint(AUTO)})
def forward(self, x, y):
    h = x
    if h.shape[0] > 2:
        h = h + 1
    else:
        h = h - 1
    h = h + y
    h = h.relu()
    torch._check(h.shape[0] != 2)
    h = h[:2]
    return h
