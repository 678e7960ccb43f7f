# seed 1094; dynamic_shapes: ({0: Dim('d0_0', min=0, max=24), 1: DimHint(AUTO), 2: Dim('d0_2', min=0, max=1024)}, None)
def forward(self, x, n):
    h = x
    h = h.relu()
    h = h @ self.w0
    h = torch.cat([h, h], dim=0)
    h = h * n + n
    h = h * n + n
    return h
