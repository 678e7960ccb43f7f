# seed 1052; dynamic_shapes: (None,)
def forward(self, x):
    h = x
    h = h[:1]
    h = h.unsqueeze(0)
    if h.shape[0] > 8:
        h = h + 1
    else:
        h = h - 1
    return h
