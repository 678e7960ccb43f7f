# seed 100060; dynamic_shapes: {'x': {0: DimHint(DYNAMIC)}, 'y': {0: Dim('s0', min=0, max=64)}, 'k': None}
# families: check, conv, if, matmul; inputs: y
def forward(self, x, y, *, k):
    x = x + k
    h = x
    torch._check(h.shape[0] != 3)
    if h.shape[0] == y.shape[0]:
        h = h * 2
    return h
