# seed 3; dynamic_shapes: ({0: Dim('s6', min=1)},)
def forward(self, x):
    h = x
    h = h.narrow(-1, 0, 4)
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h.narrow(-1, 0, 1)
    h = h.narrow(-1, 0, 1)
    return h
