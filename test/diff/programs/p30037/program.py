# seed 30037; dynamic_shapes: ({0: Dim('s5', min=0, max=40), 2: DimHint(AUTO)},)
def forward(self, x):
    h = x
    h = h.relu()
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h @ self.w0
    h = h.transpose(0, 1)
    h = h.sum(-1)
    return h
