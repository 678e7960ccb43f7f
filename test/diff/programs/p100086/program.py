# seed 100086; dynamic_shapes: {'x': {0: Dim('d0', min=0)}, 'y': {0: DimHint(AUTO)}, 'n': None, 'f': None}
# families: float, int, pad, view; inputs: y wrong
def forward(self, x, y, n, f):
    h = x
    h = h.unflatten(0, (2, -1))
    h = torch.nn.functional.pad(h, (1, 0, 1, 0))
    h = h.view(-1)
    h = torch.nn.functional.pad(h, (2, 1))
    h = h.reshape(-1)
    return h
