# seed 100095; dynamic_shapes: {'x': {0: Dim('d0', max=1024), 1: Dim('d1', min=0, max=41), 2: 2*r2 + 1}, 'k': {0: DimHint(AUTO)}}
# families: check, conv, index, matmul, unbacked; inputs: none
def forward(self, x, *, k):
    x = x + k
    h = x
    h = torch.nn.functional.avg_pool1d(h, 2, stride=2, padding=1)
    h = torch.nn.functional.conv1d(h, self.w0, stride=2, padding=0)
    h = h[2]
    return h
