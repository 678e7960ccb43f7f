# seed 1028; dynamic_shapes: ({0: Dim('d0_0', min=0), 1: DimHint(AUTO)},)
def forward(self, x):
    h = x
    h = h.sum(-1)
    h = torch.cat([h, h], dim=0)
    h = h.reshape(-1)
    return h
