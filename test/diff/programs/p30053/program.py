# seed 30053; dynamic_shapes: ({0: Dim('s5', min=0)}, {0: DimHint(DYNAMIC)})
def forward(self, x, y):
    h = x
    h = h.unsqueeze(0)
    h = h.nonzero().float()
    h = h.sum(-1)
    h = h * 2
    return h
