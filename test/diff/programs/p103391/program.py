# seed 103391; dynamic_shapes: {'x': {0: DimHint(AUTO)}, 'xs': ({1: DimHint(AUTO)}, {0: r0 + 2})}
# families: check, if, narrow, pad; inputs: tuple
def forward(self, x, xs):
    h = x
    torch._check(h.shape[0] != 9)
    h = h.narrow(0, 0, xs[0].shape[0])
    return h
