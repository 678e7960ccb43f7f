# seed 128; dynamic_shapes: (None,)
def forward(self, x):
    h = x
    h = h.unsqueeze(0)
    h = h.relu()
    if h.shape[0] > 6:
        h = h + 1
    else:
        h = h - 1
    return h
