# seed 26136; dynamic_shapes: ({0: Dim('d0_0', max=1024)}, DimHint(DYNAMIC))
def forward(self, x, n):
    h = x
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h * n + n
    h = h[:n]
    h = h[:n]
    if h.shape[0] > 2:
        h = h + 1
    else:
        h = h - 1
    return h
