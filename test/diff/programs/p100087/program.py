# seed 100087; dynamic_shapes: {'x': {0: Dim('d0')}, 'y': {0: DimHint(STATIC)}}
# families: expand, repeat, slice, unbacked; inputs: y
def forward(self, x, y):
    h = x
    u = (h > 0).sum().item()
    torch._check(u >= 0)
    torch._check(u <= h.shape[0])
    h = h[:u]
    h = h.relu() * 2
    h = torch.cat([h, h], dim=0)
    return h
