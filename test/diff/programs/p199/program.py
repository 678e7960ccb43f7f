# seed 199; dynamic_shapes: ({1: DimHint(STATIC)},)
def forward(self, x):
    h = x
    h = h.relu()
    h = h.sum(-1)
    h = h.reshape(-1)
    h = torch.cat([h, h], dim=0)
    return h
