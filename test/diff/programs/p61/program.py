# seed 61; dynamic_shapes: ({0: Dim('d0_0', min=0, max=28), 1: Dim('d0_1', min=0, max=1024)}, {0: DimHint(AUTO)})
def forward(self, x, y):
    h = x
    h = h.reshape(-1)
    h = torch.cat([h, h], dim=0)
    return h
