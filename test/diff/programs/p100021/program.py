# seed 100021; dynamic_shapes: {'x': None, 'y': {0: DimHint(AUTO)}}
# families: cat, check; inputs: y wrong
def forward(self, x, y):
    h = x
    h = torch.cat([h, y], dim=0)
    torch._check(h.shape[0] <= 7)
    torch._check(h.shape[0] >= y.shape[0])
    torch._check(h.shape[0] == 2 * y.shape[0])
    h = torch.cat([h, y], dim=0)
    return h
