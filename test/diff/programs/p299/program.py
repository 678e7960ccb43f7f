# seed 299; dynamic_shapes: ({0: Dim('s6', min=1, max=27), 1: Dim('d0_1', min=6, max=1024)}, {0: DimHint(STATIC)})
def forward(self, x, y):
    h = x
    h = h.sum(-1)
    h = h @ self.w0
    h = torch.cat([h, h], dim=0)
    h = h * -1
    return h
