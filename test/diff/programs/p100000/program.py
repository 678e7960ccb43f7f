# seed 100000; dynamic_shapes: {'x': {0: 2*r0 + 1, 1: Dim('d1', min=1, max=48)}, 'xs': ({0: DimHint(AUTO), 1: r2 - 1}, {0: DimHint(DYNAMIC)}), 'f': None}
# families: check, float; inputs: tuple wrong
def forward(self, x, xs, f):
    h = x
    h = h + f * 2
    h = h + f * 2
    torch._check(h.shape[1] >= 1)
    torch._check(h.shape[0] % 2 == 0)
    torch._check(h.shape[0] >= xs[1].shape[0])
    return h
