# seed 30007; dynamic_shapes: ({0: DimHint(AUTO)}, {0: Dim('d1_0', min=6, max=1024)})
def forward(self, x, y):
    h = x
    h = h + y
    h = h.reshape(-1)
    h = h * -1
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h.unsqueeze(0)
    return h
