# seed 198; dynamic_shapes: ({0: Dim('s6', min=0, max=39)},)
def forward(self, x):
    h = x
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h.unsqueeze(0)
    return h
