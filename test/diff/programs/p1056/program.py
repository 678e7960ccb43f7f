# seed 1056; dynamic_shapes: ({0: DimHint(STATIC)},)
def forward(self, x):
    h = x
    h = h.unsqueeze(0)
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = torch.cat([h, h], dim=0)
    if h.shape[0] % 2 == 0:
        h = h * 3
    return h
