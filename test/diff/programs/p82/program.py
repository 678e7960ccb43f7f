# seed 82; dynamic_shapes: ({0: Dim('d0_0')},)
def forward(self, x):
    h = x
    if h.shape[0] > 3:
        h = h + 1
    else:
        h = h - 1
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h[:2]
    h = h.relu()
    return h
