# seed 100006; dynamic_shapes: {'x': {0: DimHint(DYNAMIC), 1: DimHint(AUTO)}, 'y': {0: Dim('s0', min=0, max=4096)}, 'f': None, 'k': None}
# families: float, if; inputs: y wrong
def forward(self, x, y, f, *, k):
    x = x + k
    h = x
    if h.numel() > 16:
        h = h.relu()
    h = (h * f).relu()
    h = h + f * 2
    return h
