# seed 30008; dynamic_shapes: ({0: DimHint(AUTO)}, None)
def forward(self, x, n):
    h = x
    if h.shape[0] > 1:
        h = h + 1
    else:
        h = h - 1
    u = (h > 0).sum().item()
    h = h.sum() + torch.ones(u, 2)
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h * 2
    return h
