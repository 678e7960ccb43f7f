# seed 30052; dynamic_shapes: ({0: Dim('s6', min=4, max=31), 1: DimHint(STATIC), 2: DimHint(AUTO)},)
def forward(self, x):
    h = x
    h = h.nonzero().float()
    torch._check(h.shape[0] <= 2)
    h = h @ self.w0
    return h
