# seed 236; dynamic_shapes: ({0: Dim('d0_0', min=1), 1: DimHint(STATIC), 2: DimHint(STATIC)}, {0: DimHint(DYNAMIC), 1: DimHint(AUTO)})
def forward(self, x, y):
    h = x
    h = h + y
    h = torch.cat([h, h], dim=0)
    h = h.unsqueeze(0)
    h = h.flatten(1)
    return h
