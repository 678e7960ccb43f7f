# seed 282; dynamic_shapes: ({0: Dim('s2', min=0, max=38), 1: DimHint(DYNAMIC), 2: Dim('d0_2', max=26)},)
def forward(self, x):
    h = x
    h = h.transpose(0, 1)
    if h.shape[0] > 2:
        h = h + 1
    else:
        h = h - 1
    h = h.relu()
    h = h @ self.w0
    return h
