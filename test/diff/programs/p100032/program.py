# seed 100032; dynamic_shapes: {'x': {0: DimHint(STATIC)}, 'xs': ({0: DimHint(STATIC), 1: Dim('d0', min=1)}, {0: DimHint(DYNAMIC)})}
# families: if, pad, slice; inputs: tuple
def forward(self, x, xs):
    h = x
    h = h[1:]
    h = h[:3]
    return h
