# seed 49; dynamic_shapes: (None, {0: DimHint(DYNAMIC)})
def forward(self, x, y):
    h = x
    h = h.unsqueeze(0)
    h = h * -1
    return h
