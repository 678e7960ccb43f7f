# seed 100019; dynamic_shapes: {'x': {0: DimHint(DYNAMIC), 1: DimHint(AUTO)}, 'n': None, 'k': None}
# families: int, matmul; inputs: none wrong
def forward(self, x, n, *, k):
    x = x + k
    h = x
    h = h.repeat(n, 1)
    h = h.repeat(n, 1)
    return h
