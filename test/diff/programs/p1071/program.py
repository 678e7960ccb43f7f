# seed 1071; dynamic_shapes: (None,)
def forward(self, x):
    h = x
    h = h.unsqueeze(0)
    torch._check(h.shape[0] != 0)
    return h
