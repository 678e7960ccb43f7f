# seed 1036; dynamic_shapes: ({0: Dim('d0_0', min=6, max=1024)}, DimHint(DYNAMIC))
def forward(self, x, n):
    h = x
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h.flatten(1)
    h = h.relu()
    h = h.unsqueeze(0)
    return h
