# seed 154; dynamic_shapes: ({0: DimHint(AUTO)}, {0: Dim('s5', min=3, max=8)})
def forward(self, x, y):
    h = x
    h = h[:3]
    h = h @ self.w0
    return h
