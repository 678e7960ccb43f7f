# seed 1063; dynamic_shapes: ({0: Dim('d0_0', min=1, max=1024)},)
def forward(self, x):
    h = x
    h = h.narrow(-1, 0, 2)
    h = h @ self.w0
    if h.shape[0] % 2 == 0:
        h = h * 3
    return h
