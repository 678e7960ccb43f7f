# seed 100028; dynamic_shapes: {'x': {0: DimHint(DYNAMIC), 1: Dim('d0', min=1, max=1024), 2: Dim('d1', min=4, max=5)}, 'xs': [{0: Dim('d2', min=1, max=3), 1: DimHint(AUTO)}, {0: DimHint(AUTO)}], 'n': DimHint(AUTO), 'f': None, 'k': {0: Dim('d3', min=4, max=13)}}
# families: float, index, int, pad, unbacked; inputs: list wrong
def forward(self, x, xs, n, f, *, k):
    x = x + k
    h = x
    h = (h * f).relu()
    h = h.repeat(n, 1, 1)
    h = h.repeat(n, 1, 1)
    return h
