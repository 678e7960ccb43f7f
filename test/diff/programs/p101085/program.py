# seed 101085; dynamic_shapes: {'x': {0: Dim('d0', max=39), 1: DimHint(AUTO)}, 'xs': [None, {0: Dim('s1', min=0, max=64)}]}
# families: expand, split; inputs: list
def forward(self, x, xs):
    h = x
    h = h.chunk(3, dim=1)[0]
    h = torch.split(h, 1, dim=1)[-1]
    h = h.chunk(2, dim=1)[0]
    h = torch.split(h, 2, dim=0)[-1]
    h = h.chunk(3, dim=1)[0]
    return h
