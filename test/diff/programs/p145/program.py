# seed 145; dynamic_shapes: (None, None)
def forward(self, x, y):
    h = x
    h = h.narrow(-1, 0, 2)
    torch._check(h.shape[1] >= 2)
    h = h.sum(-1)
    h = h.reshape(-1)
    h = h[:1]
    return h
