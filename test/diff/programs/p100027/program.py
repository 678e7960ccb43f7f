# seed 100027; dynamic_shapes: {'x': {0: Dim('s0', min=0, max=64), 1: DimHint(AUTO), 2: DimHint(DYNAMIC)}, 'd': {'a': {0: DimHint(AUTO), 1: DimHint(DYNAMIC)}}}
# families: pad, repeat; inputs: dict
def forward(self, x, d):
    h = x
    h = torch.nn.functional.pad(h, (0, 0, 1, 0))
    h = h.repeat(d['a'].shape[0], 1, 1)
    h = h.repeat(d['a'].shape[0], 1, 1)
    h = h.repeat(d['a'].shape[0], 1, 1)
    h = h.repeat(1, 1, 2)
    return h
