# seed 100035; dynamic_shapes: {'x': {1: Dim('d0'), 2: DimHint(STATIC)}, 'n': DimHint(DYNAMIC)}
# families: check, expand, int, slice, view; inputs: none wrong
def forward(self, x, n):
    h = x
    torch._check(h.shape[0] >= 2)
    h = h[:, 1:-1]
    h = h * n + n
    h = h[:, :1, :].expand(-1, 3, -1)
    return h
