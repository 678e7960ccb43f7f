# seed 1095; dynamic_shapes: ({0: Dim('d0_0', min=0)}, DimHint(AUTO))
def forward(self, x, n):
    h = x
    h = h.narrow(-1, 0, 3)
    h = h * n + n
    h = h.unsqueeze(0)
    h = h[:1]
    h = h.flatten(1)
    return h
