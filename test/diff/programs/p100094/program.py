# seed 100094; dynamic_shapes: {'x': {0: Dim('d0', min=5, max=19)}, 'y': {0: DimHint(AUTO)}, 'n': DimHint(AUTO), 'f': None}
# families: check, expand, float, int, narrow; inputs: y
def forward(self, x, y, n, f):
    h = x
    h = h.narrow(0, 1, h.shape[0] - 2)
    h = h[:n]
    torch._check(h.shape[0] != 4)
    return h
