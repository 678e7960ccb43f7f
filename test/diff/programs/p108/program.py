# seed 108; dynamic_shapes: ({0: Dim('d0_0', min=0, max=42)},)
def forward(self, x):
    h = x
    h = h[:4]
    torch._check(h.shape[0] >= 3)
    if h.shape[0] > 4:
        h = h + 1
    else:
        h = h - 1
    h = torch.cat([h, h], dim=0)
    torch._check(h.shape[0] >= 8)
    return h
