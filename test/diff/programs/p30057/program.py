# seed 30057; dynamic_shapes: ({0: DimHint(DYNAMIC)}, None)
def forward(self, x, n):
    h = x
    h = torch.cat([h, h], dim=0)
    h = h.reshape(-1)
    if h.shape[0] > 6:
        h = h + 1
    else:
        h = h - 1
    h = h[:4]
    return h
