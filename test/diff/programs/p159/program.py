# seed 159; dynamic_shapes: ({0: DimHint(STATIC), 1: Dim('s8', max=26)}, {1: Dim('d1_1', min=0, max=1024)})
def forward(self, x, y):
    h = x
    h = torch.cat([h, h], dim=0)
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h.relu()
    h = h.flatten(1)
    h = h @ self.w0
    return h
