# seed 100076; dynamic_shapes: {'x': {0: Dim('d0', min=0, max=7)}, 'y': {0: Dim('s1', min=0, max=1024), 1: Dim('s2', min=0, max=1024)}}
# families: conv, narrow, view; inputs: y wrong
def forward(self, x, y):
    h = x
    h = h.narrow(0, 0, y.shape[0])
    h = h.reshape(1, 1, -1)
    h = torch.nn.functional.max_pool1d(h, 1, stride=2, padding=0)
    h = torch.nn.functional.conv1d(h, self.w0, stride=2, padding=0)
    h = torch.nn.functional.conv1d(h, self.w1, stride=1, padding=0)
    return h
