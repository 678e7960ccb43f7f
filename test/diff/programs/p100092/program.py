# seed 100092; dynamic_shapes: {'x': {0: Dim('d0', min=1, max=1024), 1: 2*r1 + 1, 2: Dim('d2', min=7)}, 'y': {0: 2*r3 + 1, 1: Dim('d4', max=26)}}
# families: cat, conv, narrow, unbacked; inputs: y wrong
def forward(self, x, y):
    h = x
    h = h.narrow(0, 1, 2)
    h = h.narrow(2, 0, 6)
    h = torch.nn.functional.conv1d(h, self.w0, stride=2, padding=1)
    h = torch.stack([h, h * 2], dim=0)
    h = torch.cat([h, h[:, :, :1]], dim=2)
    return h
