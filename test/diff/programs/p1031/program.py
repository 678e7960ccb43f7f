# seed 1031; dynamic_shapes: ({0: Dim('s6', max=35), 1: DimHint(AUTO), 2: Dim('s2', min=0)},)
def forward(self, x):
    h = x
    h = h.narrow(-1, 0, 2)
    h = h @ self.w0
    return h
