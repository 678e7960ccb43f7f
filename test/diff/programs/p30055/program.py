# seed 30055; dynamic_shapes: ({0: DimHint(AUTO), 1: Dim('d0_1', min=0, max=14)}, {0: Dim('d1_0', min=0)})
def forward(self, x, y):
    h = x
    h = h.relu()
    u = (h > 0).sum().item()
    h = h[:u]
    if h.shape[0] > 0:
        h = h + 1
    return h
