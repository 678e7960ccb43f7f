# seed 30040; dynamic_shapes: ({0: Dim('d0_0', min=0)}, {0: DimHint(DYNAMIC)})
def forward(self, x, y):
    h = x
    torch._check(h.shape[0] >= 5)
    h = h + y
    h = torch.cat([h, h], dim=0)
    torch._check(h.shape[0] != 2)
    h = h * -1
    return h
