# seed 100042; dynamic_shapes: {'x': {0: Dim('s0', min=0, max=4096)}, 'y': None}
# families: expand, index; inputs: y wrong
def forward(self, x, y):
    h = x
    h = h.unsqueeze(0).expand(y.shape[0], *h.shape)
    h = h[1]
    h = h.unsqueeze(0).expand(y.shape[0], *h.shape)
    h = h.unsqueeze(0).expand(y.shape[0], *h.shape)
    return h
