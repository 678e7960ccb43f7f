# seed 1032; dynamic_shapes: ({0: Dim('d0_0', min=1), 1: DimHint(AUTO)}, None)
def forward(self, x, y):
    h = x
    h = h.view(h.shape[0], -1)
    h = torch.cat([h, h], dim=0)
    h = h.narrow(-1, 0, 2)
    return h
