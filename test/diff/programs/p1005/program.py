# seed 1005; dynamic_shapes: ({0: Dim('s5', min=0), 1: DimHint(AUTO)}, None)
def forward(self, x, y):
    h = x
    h = h[:2]
    h = h * -1
    h = h * 0.5
    h = h * 0.5
    return h
