# seed 100539; dynamic_shapes: {'x': {0: DimHint(AUTO), 1: DimHint(DYNAMIC), 2: Dim('s0', min=0, max=1024)}, 'y': {0: DimHint(STATIC)}}
# families: cat, check, conv, pad, slice; inputs: y wrong
def forward(self, x, y):
    h = x
    h = torch.nn.functional.adaptive_avg_pool1d(h, 1)
    h = torch.nn.functional.pad(h, (0, h.shape[-1]))
    torch._check(h.shape[2] >= 2)
    h = torch.nn.functional.avg_pool1d(h, 1, stride=1, padding=0)
    h = h[:, ::2]
    return h
