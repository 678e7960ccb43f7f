# seed 183; dynamic_shapes: ({0: DimHint(AUTO)},)
def forward(self, x):
    h = x
    h = torch.cat([h, h], dim=0)
    h = h[:1]
    return h
