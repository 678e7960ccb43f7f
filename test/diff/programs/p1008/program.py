# seed 1008; dynamic_shapes: ({0: DimHint(STATIC), 1: Dim('s4', min=0), 2: DimHint(STATIC)},)
def forward(self, x):
    h = x
    torch._check(h.shape[2] != 1)
    h = h.relu()
    h = h @ self.w0
    return h
