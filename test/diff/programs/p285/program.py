# seed 285; dynamic_shapes: ({0: Dim('d0_0', max=7), 1: Dim('s5', min=0, max=1024), 2: DimHint(DYNAMIC)},)
def forward(self, x):
    h = x
    h = h.flatten(1)
    h = h.transpose(0, 1)
    return h
