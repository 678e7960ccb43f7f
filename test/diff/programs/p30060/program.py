# seed 30060; dynamic_shapes: ({0: Dim('d0_0'), 1: Dim('d0_1', min=1, max=1024)}, {'y': {0: DimHint(AUTO)}})
def forward(self, x, d):
    y = d["y"]
    h = x
    h = h.sum(-1)
    h = h.unsqueeze(0)
    h = h @ self.w0
    h = h @ self.w1
    if h.shape[0] % 2 == 0:
        h = h * 3
    return h
