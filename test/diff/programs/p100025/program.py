# seed 100025; dynamic_shapes: {'x': {0: DimHint(DYNAMIC)}, 'y': {1: Dim('s0', min=0, max=4096)}, 'n': DimHint(AUTO)}
# families: check, conv, int, split; inputs: y wrong
def forward(self, x, y, n):
    h = x
    h = h * n + n
    torch._check(h.shape[0] >= 2)
    h = h.reshape(1, 1, -1)
    h = torch.nn.functional.conv1d(h, self.w0, stride=1, padding=1)
    h = h.chunk(3, dim=0)[0]
    h = h.repeat(n, 1, 1)
    return h
