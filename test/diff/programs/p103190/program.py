# seed 103190; dynamic_shapes: {'x': {1: DimHint(DYNAMIC)}, 'y': {0: r0 + 1, 1: Dim('s1', min=0, max=64)}}
# families: conv, repeat, split, view; inputs: y
def forward(self, x, y):
    h = x
    h = h.reshape(-1, h.shape[-1])
    h = h.unsqueeze(1)
    h = torch.nn.functional.avg_pool1d(h, 2, stride=1, padding=1)
    h = h.tile((2,))
    h = h.view(-1)
    h = h.chunk(2, dim=0)[0]
    return h
