# seed 8; dynamic_shapes: ({0: Dim('s4', max=33)},)
def forward(self, x):
    h = x
    torch._check(h.shape[0] >= 2)
    torch._check(h.shape[0] != 2)
    h = h.relu()
    return h
