# seed 200; dynamic_shapes: ({0: Dim('s3', min=0, max=4)},)
def forward(self, x):
    h = x
    if h.shape[0] > 5:
        h = h + 1
    else:
        h = h - 1
    h = h.relu()
    return h
