# seed 50; dynamic_shapes: ({0: Dim('d0_0', min=0, max=38), 1: DimHint(STATIC)},)
def forward(self, x):
    h = x
    h = h.unsqueeze(0)
    h = h.sum(-1)
    h = h.reshape(-1)
    return h
