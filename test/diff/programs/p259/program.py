# seed 259; dynamic_shapes: ({0: Dim('d0_0', min=0, max=1024)}, None)
def forward(self, x, y):
    h = x
    h = h.narrow(-1, 0, 1)
    h = h.relu()
    h = h.reshape(-1)
    return h
