# seed 100078; dynamic_shapes: {'x': {0: DimHint(AUTO)}, 'd': {'a': {0: Dim('d0', min=0, max=7)}}}
# families: check, conv, expand, if, narrow; inputs: dict
def forward(self, x, d):
    h = x
    h = h.unsqueeze(1)
    h = torch.nn.functional.conv1d(h, self.w0, stride=2, padding=0)
    h = torch.nn.functional.conv1d(h, self.w1, stride=2, padding=0)
    h = h.unsqueeze(0).expand(d['a'].shape[0], *h.shape)
    torch._check(h.shape[2] % 2 == 0)
    return h
