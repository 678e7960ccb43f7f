# seed 1079; dynamic_shapes: ({0: DimHint(STATIC), 1: DimHint(AUTO), 2: DimHint(AUTO)}, DimHint(AUTO))
def forward(self, x, n):
    h = x
    h = h @ self.w0
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h.narrow(-1, 0, 2)
    h = h.unsqueeze(0)
    h = h.sum(-1)
    return h
