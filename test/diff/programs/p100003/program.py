# seed 100003; dynamic_shapes: {'x': {0: r0 - 1}, 'd': {'a': {0: DimHint(AUTO), 1: DimHint(AUTO)}}, 'n': None}
# families: int, repeat, unbacked, view; inputs: dict
def forward(self, x, d, n):
    h = x
    h = h[h > 0]
    return h
