# seed 286; dynamic_shapes: ({0: Dim('d0_0', max=1024), 1: Dim('d0_1', min=0, max=24)},)
def forward(self, x):
    h = x
    h = h.unsqueeze(0)
    h = h.view(h.shape[0], -1)
    return h
