# seed 103341; dynamic_shapes: {'x': {0: DimHint(STATIC), 1: r0 + 2, 2: DimHint(DYNAMIC)}, 'n': None}
# families: index, int, slice; inputs: none
def forward(self, x, n):
    h = x
    h = h[:, ::2]
    h = h[torch.arange(h.shape[0] - 1)]
    h = h.repeat(n, 1, 1)
    return h
