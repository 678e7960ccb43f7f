# seed 100098; dynamic_shapes: {'x': {0: DimHint(AUTO), 1: DimHint(STATIC), 2: DimHint(STATIC)}, 'd': {'a': {0: Dim('d0', min=0), 1: DimHint(DYNAMIC)}}, 'n': DimHint(DYNAMIC)}
# families: expand, if, index, int, view; inputs: dict
def forward(self, x, d, n):
    h = x
    h = h.repeat(n, 1, 1)
    h = h.unsqueeze(0).expand(d['a'].shape[0], *h.shape)
    h = torch.gather(h, -1, torch.zeros(*h.shape[:-1], 1, dtype=torch.long))
    return h
