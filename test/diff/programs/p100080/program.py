# seed 100080; dynamic_shapes: {'x': {0: DimHint(STATIC)}, 'f': None, 'k': {0: r0 + 1}}
# families: float, if, pad; inputs: none
def forward(self, x, f, *, k):
    x = x + k
    h = x
    h = torch.nn.functional.pad(h, (2, 0))
    h = (h * f).relu()
    if h.shape[0] > 6:
        h = h + 1
    else:
        h = h - 1
    if h.shape[0] > 8:
        h = h + 1
    else:
        h = h - 1
    if h.shape[0] > 3:
        h = h + 1
    else:
        h = h - 1
    return h
