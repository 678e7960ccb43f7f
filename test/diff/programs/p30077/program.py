# seed 30077; dynamic_shapes: ({0: Dim('d0_0'), 1: DimHint(STATIC), 2: DimHint(AUTO)},)
def forward(self, x):
    h = x
    h = h.relu()
    h = h.view(h.shape[0], -1)
    h = h @ self.w0
    h = h.relu()
    h = h.sum(-1)
    return h
