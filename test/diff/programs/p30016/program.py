# seed 30016; dynamic_shapes: (None, {0: Dim('d1_0')})
def forward(self, x, y):
    h = x
    h = h.narrow(-1, 0, 6)
    u = (h > 0).sum().item()
    h = h.narrow(0, 0, u)
    return h
