# seed 174; dynamic_shapes: ({0: DimHint(AUTO)},)
def forward(self, x):
    h = x
    h = torch.cat([h, h], dim=0)
    h = h * 2
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = torch.cat([h, h], dim=0)
    return h
