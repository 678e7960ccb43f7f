# seed 100064; dynamic_shapes: {'x': {0: DimHint(DYNAMIC), 1: DimHint(AUTO), 2: Dim('s0', min=0, max=4096)}, 'y': {0: Dim('s1', min=0, max=4096)}}
# families: conv, pad, repeat; inputs: y
def forward(self, x, y):
    h = x
    h = h.repeat(1, 1, 2)
    h = h.tile((2,))
    h = torch.nn.functional.pad(h, (1, 3))
    h = torch.nn.functional.avg_pool1d(h, 3, stride=2, padding=1)
    h = torch.nn.functional.pad(h, (2, 3))
    return h
