# seed 1003; dynamic_shapes: ({0: DimHint(AUTO), 1: Dim('d0_1', min=0, max=1024)}, {0: DimHint(AUTO)})
def forward(self, x, y):
    h = x
    h = h.narrow(-1, 0, 4)
    h = h.narrow(-1, 0, 1)
    h = torch.cat([h, h], dim=0)
    h = h @ self.w0
    h = h.sum(-1)
    return h
