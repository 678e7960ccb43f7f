# seed 100062; dynamic_shapes: {'x': {0: DimHint(AUTO)}, 'y': {0: Dim('d0', min=1)}}
# families: conv, index, matmul; inputs: y
def forward(self, x, y):
    h = x
    h = h @ self.w0
    h = h @ self.w1
    h = h[torch.arange(h.shape[0] - 1)]
    return h
