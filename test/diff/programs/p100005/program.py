# seed 100005; dynamic_shapes: {'x': {1: DimHint(DYNAMIC)}, 'xs': [{1: DimHint(AUTO)}, {0: DimHint(AUTO)}], 'n': None}
# families: if, int, slice, unbacked; inputs: list wrong
def forward(self, x, xs, n):
    h = x
    h = h[:, ::2]
    h = h[:-1]
    if h.shape[1] == xs[1].shape[0]:
        h = h * 2
    if h.shape[0] > 1:
        h = h + 1
    else:
        h = h - 1
    h = h.repeat(n, 1)
    return h
