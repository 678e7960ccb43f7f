# seed 100096; dynamic_shapes: {'x': {0: Dim('s0', min=0, max=1024), 1: Dim('s1', min=0, max=1024), 2: DimHint(AUTO)}, 'y': {0: Dim('d2', min=0)}}
# families: conv, index, matmul, unbacked; inputs: y
def forward(self, x, y):
    h = x
    h = torch.nn.functional.adaptive_avg_pool1d(h, 1)
    h = h @ h.transpose(-1, -2)
    h = torch.gather(h, -1, torch.zeros(*h.shape[:-1], 1, dtype=torch.long))
    h = h @ self.w0
    return h
