# seed 59; dynamic_shapes: ({0: Dim('s2', max=1024)},)
def forward(self, x):
    h = x
    h = h.relu()
    if h.shape[0] > 5:
        h = h + 1
    else:
        h = h - 1
    h = h.relu()
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h.narrow(-1, 0, 1)
    return h
