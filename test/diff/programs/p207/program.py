# seed 207; dynamic_shapes: ({0: DimHint(DYNAMIC), 1: Dim('s8', min=0, max=11), 2: Dim('d0_2', min=0)},)
def forward(self, x):
    h = x
    h = h.unsqueeze(0)
    if h.shape[0] > 1:
        h = h + 1
    else:
        h = h - 1
    h = h @ self.w0
    return h
