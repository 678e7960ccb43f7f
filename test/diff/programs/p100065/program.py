# seed 100065; dynamic_shapes: {'x': {0: DimHint(DYNAMIC), 1: DimHint(AUTO), 2: Dim('d0', min=1)}, 'y': {0: Dim('s1', min=0, max=1024), 1: DimHint(STATIC)}}
# families: conv, if, index, matmul; inputs: y
def forward(self, x, y):
    h = x
    if h.shape[0] > 3:
        h = h + 1
    else:
        h = h - 1
    h = h[torch.arange(h.shape[0] - 1)]
    h = torch.nn.functional.max_pool1d(h, 2, stride=1, padding=1)
    h = torch.gather(h, -1, torch.zeros(*h.shape[:-1], 1, dtype=torch.long))
    return h
