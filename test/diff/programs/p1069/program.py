# seed 1069; dynamic_shapes: ({0: Dim('s8', min=0), 1: Dim('s3', min=0)},)
def forward(self, x):
    h = x
    h = h * -1
    if h.shape[0] > 8:
        h = h + 1
    else:
        h = h - 1
    return h
