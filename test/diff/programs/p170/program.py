# seed 170; dynamic_shapes: ({1: Dim('s4', min=0, max=37)}, {0: DimHint(STATIC), 1: DimHint(AUTO)})
def forward(self, x, y):
    h = x
    h = h.relu()
    h = torch.cat([h, h], dim=0)
    if h.shape[0] % 2 == 0:
        h = h * 3
    return h
