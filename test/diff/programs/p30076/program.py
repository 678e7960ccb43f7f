# seed 30076; dynamic_shapes: (None, {'y': {0: Dim('s5')}}, DimHint(AUTO))
def forward(self, x, d, n):
    y = d["y"]
    h = x
    u = (h > 0).sum().item()
    h = h[:u]
    h = torch.cat([h, h], dim=0)
    torch._check(h.shape[0] <= 8)
    torch._check(h.shape[0] >= 8)
    return h
