# seed 100053; dynamic_shapes: {'x': {0: DimHint(STATIC), 1: DimHint(AUTO)}, 'y': {0: Dim('d0', min=3, max=8)}, 'f': None}
# families: float, index, narrow, view; inputs: y wrong
def forward(self, x, y, f):
    h = x
    h = torch.gather(h, -1, torch.zeros(*h.shape[:-1], 1, dtype=torch.long))
    h = (h * f).relu()
    h = h.narrow(0, 0, y.shape[0])
    return h
