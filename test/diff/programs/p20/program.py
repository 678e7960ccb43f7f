# seed 20; dynamic_shapes: ({0: DimHint(DYNAMIC), 1: DimHint(AUTO), 2: Dim('d0_2')},)
def forward(self, x):
    h = x
    h = h.narrow(-1, 0, 3)
    h = torch.cat([h, h], dim=0)
    return h
