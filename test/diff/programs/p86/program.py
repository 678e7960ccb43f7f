# seed 86; dynamic_shapes: (None,)
def forward(self, x):
    h = x
    h = h.relu()
    h = h * -1
    h = h.reshape(-1)
    if h.shape[0] % 2 == 0:
        h = h * 3
    return h
