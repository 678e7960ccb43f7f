# seed 275; dynamic_shapes: ({0: Dim('d0_0', max=1024)},)
def forward(self, x):
    h = x
    h = torch.cat([h, h], dim=0)
    if h.shape[0] > 6:
        h = h + 1
    else:
        h = h - 1
    if h.shape[0] % 2 == 0:
        h = h * 3
    if h.shape[0] > 6:
        h = h + 1
    else:
        h = h - 1
    return h
