# seed 175; dynamic_shapes: ({0: Dim('s3', max=34), 1: DimHint(AUTO)},)
def forward(self, x):
    h = x
    h = h.flatten(1)
    h = torch.cat([h, h], dim=0)
    h = h.narrow(-1, 0, 1)
    return h
