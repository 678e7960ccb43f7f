# seed 30034; dynamic_shapes: ({0: Dim('s6', min=1, max=1024)}, DimHint(AUTO))
def forward(self, x, n):
    h = x
    if h.shape[0] > 1:
        h = h + 1
    else:
        h = h - 1
    h = h[:1]
    return h
