# seed 1026; dynamic_shapes: ({0: Dim('d0_0', min=1)}, None)
def forward(self, x, y):
    h = x
    h = h * 0.5
    h = h.unsqueeze(0)
    return h
