# seed 30070; dynamic_shapes: (None, None)
def forward(self, x, n):
    h = x
    h = h @ self.w0
    h = h[:2]
    h = h[:1]
    return h
