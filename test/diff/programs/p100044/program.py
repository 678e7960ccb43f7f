# seed 100044; dynamic_shapes: {'x': {0: Dim('d0', min=1, max=1024), 1: Dim('d1', min=1), 2: DimHint(AUTO)}, 'y': {0: DimHint(AUTO), 1: Dim('s2', min=0, max=64)}, 'f': None}
# families: float, view; inputs: y
def forward(self, x, y, f):
    h = x
    h = (h * f).relu()
    h = h.reshape(-1)
    h = h * f
    h = h.reshape(-1)
    return h
