# seed 100048; dynamic_shapes: {'x': {2: DimHint(STATIC)}, 'xs': ({0: r0 - 1, 1: Dim('d1', max=1024)}, {0: Dim('d2', min=7, max=1024)})}
# families: index, pad, repeat, slice, split; inputs: tuple
def forward(self, x, xs):
    h = x
    h = h[:, :, :h.shape[2] - 1]
    h = h[3]
    return h
