# seed 77; dynamic_shapes: ({1: DimHint(AUTO)}, {0: Dim('s4', min=0, max=1024), 1: Dim('d1_1', min=0, max=22)})
def forward(self, x, y):
    h = x
    h = h + y
    h = h[:3]
    h = h @ self.w0
    return h
