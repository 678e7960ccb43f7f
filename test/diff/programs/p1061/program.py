# seed 1061; dynamic_shapes: ({1: Dim('d0_1', max=43), 2: DimHint(AUTO)},)
def forward(self, x):
    h = x
    h = h.flatten(1)
    h = h.unsqueeze(0)
    h = h.unsqueeze(0)
    h = h.narrow(-1, 0, 8)
    h = torch.cat([h, h], dim=0)
    return h
