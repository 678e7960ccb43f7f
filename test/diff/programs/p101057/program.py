# seed 101057; dynamic_shapes: {'x': {0: Dim('s0', min=0, max=1024)}, 'y': {0: DimHint(STATIC)}}
# families: conv, index, repeat, unbacked; inputs: y
def forward(self, x, y):
    h = x
    h = h.reshape(1, 1, -1)
    h = torch.nn.functional.conv1d(h, self.w0, stride=2, padding=0)
    h = torch.gather(h, -1, torch.zeros(*h.shape[:-1], 1, dtype=torch.long))
    h = torch.gather(h, -1, torch.zeros(*h.shape[:-1], 1, dtype=torch.long))
    u = (h > 0).sum().item()
    torch._check(u >= 0)
    torch._check(u <= h.shape[0])
    h = h[:u]
    return h
