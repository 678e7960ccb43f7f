# seed 100067; dynamic_shapes: {'x': {0: Dim('d0', min=1, max=1024), 1: 2*r1}}
# families: cat, pad, repeat, slice; inputs: none wrong
def forward(self, x):
    h = x
    h = h[:, -2:]
    h = torch.nn.functional.pad(h, (0, h.shape[-1]))
    return h
