# seed 100046; dynamic_shapes: {'x': {0: 2*r0 + 1, 1: DimHint(STATIC), 2: Dim('s1', min=0, max=64)}, 'y': {0: Dim('d2', min=1)}, 'n': DimHint(AUTO)}
# families: conv, int, narrow, slice; inputs: y
def forward(self, x, y, n):
    h = x
    h = h * n + n
    h = torch.nn.functional.avg_pool1d(h, 2, stride=1, padding=1)
    h = h.repeat(n, 1, 1)
    return h
