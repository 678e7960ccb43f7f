# seed 92; dynamic_shapes: ({0: Dim('s6', min=0, max=1024), 1: Dim('d0_1', min=0)},)
def forward(self, x):
    h = x
    h = h.reshape(-1)
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h * -1
    h = h.reshape(-1)
    return h
