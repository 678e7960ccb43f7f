# seed 80; dynamic_shapes: ({0: Dim('d0_0', min=0), 1: Dim('d0_1', min=0, max=1024)},)
def forward(self, x):
    h = x
    h = h.transpose(0, 1)
    h = h.transpose(0, 1)
    h = h[:4]
    h = h.transpose(0, 1)
    h = h.relu()
    return h
