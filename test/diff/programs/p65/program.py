# seed 65; dynamic_shapes: ({0: Dim('d0_0'), 1: Dim('s4', min=1, max=1024)},)
def forward(self, x):
    h = x
    h = h.sum(-1)
    h = h.unsqueeze(0)
    h = h[:1]
    return h
