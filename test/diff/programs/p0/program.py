# seed 0; dynamic_shapes: ({0: DimHint(DYNAMIC)}, {0: DimHint(DYNAMIC)})
def forward(self, x, y):
    h = x
    h = h.reshape(-1)
    h = torch.cat([h, h], dim=0)
    h = h.narrow(-1, 0, 7)
    h = h.reshape(-1)
    return h
