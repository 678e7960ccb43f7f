# seed 100007; dynamic_shapes: {'x': None, 'y': {0: DimHint(DYNAMIC), 1: DimHint(DYNAMIC)}, 'k': {0: DimHint(AUTO)}}
# families: slice, split; inputs: y wrong
def forward(self, x, y, *, k):
    x = x + k
    h = x
    h = h.split([1, h.shape[0] - 1], dim=0)[1]
    h = h.chunk(3, dim=0)[0]
    h = h.chunk(2, dim=0)[0]
    h = h[:3]
    h = torch.split(h, 1, dim=0)[-1]
    return h
