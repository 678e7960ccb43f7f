# seed 100077; dynamic_shapes: {'x': {0: 2*r0 + 1}}
# families: cat, if, pad, slice; inputs: none
def forward(self, x):
    h = x
    if h.shape[0] % 3 == 0:
        h = h * 3
    if h.shape[0] % 2 == 0:
        h = h * 3
    return h
