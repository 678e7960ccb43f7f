# seed 1050; dynamic_shapes: ({0: Dim('s6', max=34), 1: Dim('d0_1', min=1)}, {0: Dim('d1_0', max=26)}, DimHint(DYNAMIC))
def forward(self, x, y, n):
    h = x
    h = h @ self.w0
    h = h * n + n
    h = torch.cat([h, h], dim=0)
    if h.shape[0] > 2:
        h = h + 1
    else:
        h = h - 1
    h = h[:n]
    return h
