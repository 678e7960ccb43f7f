# seed 130; dynamic_shapes: ({0: DimHint(AUTO), 1: DimHint(STATIC), 2: Dim('d0_2', min=0)},)
def forward(self, x):
    h = x
    h = h @ self.w0
    h = h.relu()
    h = h.transpose(0, 1)
    torch._check(h.shape[2] >= 3)
    h = h.transpose(0, 1)
    return h
