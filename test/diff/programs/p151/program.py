# seed 151; dynamic_shapes: ({0: DimHint(AUTO), 1: Dim('s8'), 2: Dim('s8')},)
def forward(self, x):
    h = x
    h = h.flatten(1)
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h.transpose(0, 1)
    h = torch.cat([h, h], dim=0)
    return h
