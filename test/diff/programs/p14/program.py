# seed 14; dynamic_shapes: ({0: Dim('s6', min=1, max=1024)},)
def forward(self, x):
    h = x
    h = h[:3]
    h = h[:1]
    if h.shape[0] % 2 == 0:
        h = h * 3
    return h
