# seed 30086; dynamic_shapes: ({0: Dim('s3', min=0, max=1024), 1: DimHint(AUTO)},)
def forward(self, x):
    h = x
    h = h.view(h.shape[0], -1)
    h = h.narrow(-1, 0, 5)
    h = h.sum(-1)
    return h
