# seed 30017; dynamic_shapes: ({0: DimHint(STATIC), 1: Dim('d0_1', max=36), 2: DimHint(AUTO)}, {0: Dim('d1_0', min=1, max=18)}, None)
def forward(self, x, y, n):
    h = x
    u = (h > 0).sum().item()
    h = h.narrow(0, 0, u)
    torch._check(h.shape[0] >= 0)
    h = torch.cat([h, h], dim=0)
    torch._check(h.shape[0] >= 1)
    return h
