# seed 100059; dynamic_shapes: {'x': {0: 2*r0, 2: Dim('s1', min=0, max=1024)}, 'y': {0: Dim('d2', max=1024)}}
# families: cat, narrow; inputs: y
def forward(self, x, y):
    h = x
    h = torch.cat([h, h[:1]], dim=0)
    h = h.narrow(2, 1, h.shape[2] - 2)
    h = torch.cat([h, h[:1]], dim=0)
    h = torch.cat([h, h[:, :, :1]], dim=2)
    h = h.narrow(0, 0, y.shape[0])
    return h
