# seed 100090; dynamic_shapes: {'x': {0: DimHint(AUTO), 1: Dim('s0', min=0, max=1024)}, 'xs': [{0: DimHint(AUTO), 1: Dim('d1', min=7)}, {0: Dim('s0', min=0, max=1024)}]}
# families: check, if; inputs: list wrong
def forward(self, x, xs):
    h = x
    torch._check(h.shape[0] != 7)
    torch._check(h.shape[1] >= 2)
    return h
