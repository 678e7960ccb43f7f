# seed 100018; dynamic_shapes: {'x': {0: DimHint(AUTO), 1: Dim('d0', min=0, max=1024), 2: DimHint(STATIC)}, 'xs': [{0: DimHint(STATIC), 1: DimHint(AUTO)}, {0: Dim('d1', min=1, max=1024)}]}
# families: expand, if, unbacked; inputs: list
def forward(self, x, xs):
    h = x
    u = (h > 0).sum().item()
    torch._check(u >= 0)
    torch._check(u <= h.shape[0])
    h = h[:u]
    h = torch.cat([h, h], dim=0)
    h = torch.cat([h, h], dim=0)
    return h
