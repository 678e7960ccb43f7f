# seed 100049; dynamic_shapes: {'x': {1: DimHint(AUTO)}, 'd': {'a': {0: Dim('d0', min=1), 1: Dim('d1', min=5)}}, 'f': None}
# families: float, if, narrow, repeat, split; inputs: dict
def forward(self, x, d, f):
    h = x
    h = torch.split(h, 1, dim=0)[-1]
    h = h + f * 2
    h = torch.split(h, 2, dim=1)[-1]
    h = h.unbind(1)[0]
    h = h.chunk(2, dim=0)[0]
    return h
