# seed 1038; dynamic_shapes: ({0: Dim('s2', min=1, max=1024)}, {'y': {0: Dim('s2', min=1, max=1024)}}, DimHint(DYNAMIC))
def forward(self, x, d, n):
    y = d["y"]
    h = x
    h = torch.cat([h, h], dim=0)
    h = h * -1
    h = h * 0.5
    if h.shape[0] % 2 == 0:
        h = h * 3
    return h
