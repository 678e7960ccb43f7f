# seed 99; dynamic_shapes: ({0: DimHint(AUTO), 1: Dim('s3', min=0, max=1024)},)
def forward(self, x):
    h = x
    h = h.unsqueeze(0)
    h = h.view(h.shape[0], -1)
    return h
