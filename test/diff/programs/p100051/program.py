# seed 100051; dynamic_shapes: {'x': {0: DimHint(DYNAMIC), 1: Dim('d0', min=9)}, 'y': {0: DimHint(AUTO)}}
# families: narrow, split; inputs: y wrong
def forward(self, x, y):
    h = x
    h = h.narrow(0, 1, h.shape[0] - 2)
    h = torch.split(h, 2, dim=0)[-1]
    h = h.narrow(0, 0, 2)
    h = h.unbind(0)[0]
    h = h.split([1, h.shape[0] - 1], dim=0)[1]
    return h
