# seed 135; dynamic_shapes: ({0: Dim('d0_0', min=1, max=27)},)
def forward(self, x):
    h = x
    h = h.flatten(1)
    h = h.narrow(-1, 0, 16)
    h = h.sum(-1)
    h = h[:1]
    h = h.narrow(-1, 0, 1)
    return h
