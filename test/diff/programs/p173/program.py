# seed 173; dynamic_shapes: ({0: DimHint(AUTO), 1: Dim('d0_1', min=0, max=1024)},)
def forward(self, x):
    h = x
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h.narrow(-1, 0, 4)
    h = h.view(h.shape[0], -1)
    h = h.unsqueeze(0)
    return h
