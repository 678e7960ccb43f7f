# seed 1027; dynamic_shapes: ({0: DimHint(AUTO)},)
def forward(self, x):
    h = x
    torch._check(h.shape[0] != 1)
    h = h.reshape(-1)
    h = h.relu()
    h = h.reshape(-1)
    h = h.reshape(-1)
    return h
