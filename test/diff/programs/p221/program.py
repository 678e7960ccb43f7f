# seed 221; dynamic_shapes: ({0: Dim('s5', min=3)}, None)
def forward(self, x, y):
    h = x
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h.narrow(-1, 0, 3)
    h = h.reshape(-1)
    return h
