# seed 278; dynamic_shapes: ({0: Dim('d0_0', min=3, max=1024), 1: Dim('d0_1', min=0, max=1024)}, {0: Dim('d1_0', max=1024)})
def forward(self, x, y):
    h = x
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h.flatten(1)
    h = h.transpose(0, 1)
    h = h.transpose(0, 1)
    h = h[:1]
    return h
