# seed 30026; dynamic_shapes: ({0: Dim('s4', min=0, max=1024)}, {'y': {0: Dim('s4', min=0, max=1024)}})
def forward(self, x, d):
    y = d["y"]
    h = x
    h = h + y
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h[:3]
    h = h * -1
    h = h.unsqueeze(0)
    return h
