# seed 234; dynamic_shapes: ({0: DimHint(AUTO)},)
def forward(self, x):
    h = x
    h = h[:3]
    h = h.sum(-1)
    h = h.unsqueeze(0)
    h = torch.cat([h, h], dim=0)
    return h
