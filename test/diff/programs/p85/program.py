# seed 85; dynamic_shapes: ({0: DimHint(STATIC)},)
def forward(self, x):
    h = x
    h = torch.cat([h, h], dim=0)
    return h
