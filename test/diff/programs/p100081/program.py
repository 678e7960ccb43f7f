# seed 100081; dynamic_shapes: {'x': {1: DimHint(DYNAMIC)}, 'xs': [{0: DimHint(DYNAMIC), 1: DimHint(AUTO)}, {0: DimHint(DYNAMIC)}], 'k': {0: Dim('d0', max=3)}}
# families: conv, expand, if, unbacked; inputs: list wrong
def forward(self, x, xs, *, k):
    x = x + k
    h = x
    if h.shape[1] % 2 == 0:
        h = h * 3
    if h.shape[1] > 4:
        h = h + 1
    else:
        h = h - 1
    h = h.nonzero().float()
    return h
