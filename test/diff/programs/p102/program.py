# seed 102; dynamic_shapes: ({0: Dim('d0_0', min=1, max=47)},)
def forward(self, x):
    h = x
    h = h.reshape(-1)
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h.narrow(-1, 0, 3)
    return h
