# seed 100071; dynamic_shapes: {'x': {0: DimHint(AUTO), 1: DimHint(AUTO), 2: Dim('d0', min=1, max=39)}, 'y': {0: DimHint(AUTO), 1: Dim('d1', min=4, max=1024)}}
# families: expand, if, matmul, narrow, pad; inputs: y
def forward(self, x, y):
    h = x
    h = h.narrow(2, 1, h.shape[2] - 2)
    h = h.narrow(0, 1, h.shape[0] - 2)
    h = h.narrow(0, 0, y.shape[0])
    h = h @ self.w0
    h = torch.nn.functional.pad(h, (2, 3, 1, 0))
    return h
