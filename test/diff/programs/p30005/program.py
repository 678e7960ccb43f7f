# seed 30005; dynamic_shapes: ({0: Dim('d0_0', min=0, max=1024), 1: DimHint(AUTO), 2: DimHint(AUTO)}, {0: DimHint(AUTO), 1: Dim('s8', max=1024), 2: DimHint(AUTO)}, None)
def forward(self, x, y, n):
    h = x
    h = h.unsqueeze(0)
    h = h.flatten(1)
    h = h * n + n
    h = h[:1]
    h = h * n + n
    return h
