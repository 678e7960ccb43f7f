# seed 168; dynamic_shapes: ({0: Dim('d0_0', max=24), 1: Dim('d0_1', min=4, max=16)}, {0: Dim('s2', min=0), 1: Dim('d1_1', min=0, max=15), 2: Dim('s4', max=5)})
def forward(self, x, y):
    h = x
    h = h + y
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = torch.cat([h, h], dim=0)
    h = h @ self.w0
    h = h * 2
    return h
