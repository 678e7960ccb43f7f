# seed 30003; dynamic_shapes: ({0: Dim('d0_0')},)
def forward(self, x):
    h = x
    h = h.relu()
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h.relu()
    h = h.relu()
    return h
