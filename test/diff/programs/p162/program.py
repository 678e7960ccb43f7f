# seed 162; dynamic_shapes: ({0: Dim('s8', min=0)},)
def forward(self, x):
    h = x
    h = h.reshape(-1)
    torch._check(h.shape[0] != 4)
    h = h[:4]
    return h
