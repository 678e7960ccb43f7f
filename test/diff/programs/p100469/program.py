# seed 100469; dynamic_shapes: {'x': {0: DimHint(AUTO)}, 'd': {'a': {0: r0 + 2, 1: Dim('s1', min=0, max=64)}}}
# families: cat, conv, repeat, slice; inputs: dict
def forward(self, x, d):
    h = x
    h = torch.cat([h, h[:1]], dim=0)
    h = h.tile((2,))
    h = h.reshape(1, 1, -1)
    h = torch.nn.functional.conv1d(h, self.w0, stride=2, padding=1)
    return h
