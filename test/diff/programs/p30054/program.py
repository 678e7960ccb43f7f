# seed 30054; dynamic_shapes: ({0: Dim('d0_0', max=6), 1: DimHint(AUTO)}, None)
def forward(self, x, n):
    h = x
    u = (h > 0).sum().item()
    h = h[:u]
    h = h.view(h.shape[0], -1)
    if h.shape[0] > 2:
        h = h + 1
    if h.shape[0] > 0:
        h = h + 1
    return h
