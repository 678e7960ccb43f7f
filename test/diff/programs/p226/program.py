# seed 226; dynamic_shapes: ({0: Dim('d0_0', max=1024), 1: Dim('d0_1', min=0, max=47)},)
def forward(self, x):
    h = x
    if h.shape[0] > 6:
        h = h + 1
    else:
        h = h - 1
    h = h.transpose(0, 1)
    return h
