# seed 30097; dynamic_shapes: ({0: Dim('d0_0', max=39), 1: DimHint(DYNAMIC)},)
def forward(self, x):
    h = x
    h = h.view(h.shape[0], -1)
    h = h.transpose(0, 1)
    return h
