# seed 176; dynamic_shapes: ({0: Dim('s2', min=0)},)
def forward(self, x):
    h = x
    h = h * 0.5
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = torch.cat([h, h], dim=0)
    return h
