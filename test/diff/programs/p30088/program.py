# seed 30088; dynamic_shapes: ({0: DimHint(AUTO), 1: DimHint(AUTO), 2: DimHint(AUTO)}, {0: Dim('d1_0', min=0, max=29)})
def forward(self, x, y):
    h = x
    u = (h > 0).sum().item()
    h = h.sum() + torch.ones(u, 2)
    h = h.sum(-1)
    h = torch.cat([h, h], dim=0)
    h = h * 2
    return h
