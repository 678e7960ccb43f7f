# seed 103118; dynamic_shapes: {'x': {0: DimHint(AUTO), 1: DimHint(AUTO), 2: DimHint(AUTO)}, 'd': {'a': {0: 2*r0 + 1}}}
# families: matmul, narrow, pad; inputs: dict wrong
def forward(self, x, d):
    h = x
    h = h.narrow(0, 1, h.shape[0] - 2)
    h = h @ h.transpose(-1, -2)
    h = h.narrow(0, 1, 1)
    h = h.narrow(2, 0, d['a'].shape[0])
    h = torch.nn.functional.pad(h, (2, 1, 1, 0))
    return h
