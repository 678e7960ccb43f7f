# seed 247; dynamic_shapes: ({0: DimHint(DYNAMIC), 1: DimHint(STATIC)}, None)
def forward(self, x, y):
    h = x
    h = h[:1]
    h = h @ self.w0
    return h
