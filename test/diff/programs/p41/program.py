# seed 41; dynamic_shapes: ({0: Dim('d0_0'), 1: DimHint(AUTO)},)
def forward(self, x):
    h = x
    h = torch.cat([h, h], dim=0)
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h.unsqueeze(0)
    h = h.flatten(1)
    h = h[:1]
    return h
