# seed 1083; dynamic_shapes: ({0: DimHint(AUTO)}, {0: Dim('d1_0', min=0, max=1024)}, None)
def forward(self, x, y, n):
    h = x
    if h.shape[0] > 5:
        h = h + 1
    else:
        h = h - 1
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h * n + n
    h = h * n + n
    return h
