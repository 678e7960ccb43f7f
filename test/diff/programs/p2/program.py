# seed 2; dynamic_shapes: ({0: Dim('d0_0', max=34)}, {0: Dim('s1')})
def forward(self, x, y):
    h = x
    h = h + y
    h = h.narrow(-1, 0, 1)
    h = h.narrow(-1, 0, 1)
    h = h.narrow(-1, 0, 1)
    return h
