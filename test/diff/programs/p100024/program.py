# seed 100024; dynamic_shapes: {'x': {0: Dim('d0', min=7, max=1024), 1: DimHint(AUTO)}, 'f': None}
# families: float, split; inputs: none
def forward(self, x, f):
    h = x
    h = h.chunk(2, dim=1)[0]
    h = h.unbind(1)[0]
    h = h * f
    return h
