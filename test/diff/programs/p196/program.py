# seed 196; dynamic_shapes: ({0: DimHint(DYNAMIC), 2: DimHint(AUTO)},)
def forward(self, x):
    h = x
    h = h.reshape(-1)
    h = h @ self.w0
    h = h * 0.5
    return h
