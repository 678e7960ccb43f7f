# seed 103359; dynamic_shapes: {'x': {0: Dim('d0', min=0)}, 'y': {0: Dim('d1'), 1: r2 - 1}}
# families: check, narrow, pad, unbacked; inputs: y
def forward(self, x, y):
    h = x
    torch._check(h.shape[0] >= y.shape[0])
    h = h.narrow(0, 1, h.shape[0] - 2)
    h = torch.nn.functional.pad(h, (0, 0))
    h = torch.nn.functional.pad(h, (1, 3))
    return h
