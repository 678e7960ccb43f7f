# seed 30020; dynamic_shapes: ({0: DimHint(AUTO), 1: DimHint(AUTO)},)
def forward(self, x):
    h = x
    h = h @ self.w0
    h = h.reshape(-1)
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h.relu()
    return h
