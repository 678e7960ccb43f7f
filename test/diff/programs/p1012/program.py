# seed 1012; dynamic_shapes: ({0: Dim('d0_0'), 1: DimHint(STATIC)}, {0: Dim('d1_0', max=11)})
def forward(self, x, y):
    h = x
    h = h @ self.w0
    h = torch.cat([h, h], dim=0)
    h = h.sum(-1)
    h = h * 0.5
    h = h.narrow(-1, 0, 2)
    return h
