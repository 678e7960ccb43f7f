# seed 148; dynamic_shapes: (None,)
def forward(self, x):
    h = x
    h = h.narrow(-1, 0, 7)
    h = h.transpose(0, 1)
    return h
