# seed 257; dynamic_shapes: ({0: Dim('s5', min=0), 1: DimHint(DYNAMIC)}, {0: DimHint(AUTO), 1: Dim('s1', min=0)})
def forward(self, x, y):
    h = x
    h = h + y
    h = h.narrow(-1, 0, 1)
    h = h.transpose(0, 1)
    h = h.unsqueeze(0)
    h = torch.cat([h, h], dim=0)
    return h
