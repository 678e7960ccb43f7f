# seed 103258; dynamic_shapes: {'x': {1: Dim('d0', min=1, max=1024), 2: Dim('d1', min=1, max=2)}, 'xs': [{1: r2 + 1}, {0: Dim('d3', min=0, max=10)}], 'f': None}
# families: cat, check, float, repeat, split; inputs: list wrong
def forward(self, x, xs, f):
    h = x
    h = h.repeat(xs[0].shape[0], 1, 1)
    h = h.repeat(xs[0].shape[0], 1, 1)
    torch._check(h.shape[1] != 3)
    h = torch.stack([h, h * 2], dim=0)
    return h
