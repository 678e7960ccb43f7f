# seed 1007; dynamic_shapes: (None, {0: DimHint(AUTO)})
def forward(self, x, y):
    h = x
    h = torch.cat([h, h], dim=0)
    h = h.relu()
    h = h[:10]
    return h
