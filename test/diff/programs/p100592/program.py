# seed 100592; dynamic_shapes: {'x': {0: DimHint(STATIC), 1: DimHint(AUTO)}, 'f': None, 'k': {0: Dim('s0', min=0, max=4096)}}
# families: conv, float, split; inputs: none
def forward(self, x, f, *, k):
    x = x + k
    h = x
    h = h.unsqueeze(1)
    h = torch.nn.functional.conv1d(h, self.w0, stride=1, padding=0)
    h = h.unbind(0)[0]
    h = h.chunk(2, dim=0)[0]
    h = h.chunk(2, dim=1)[0]
    return h
