# seed 245; dynamic_shapes: ({0: Dim('s4', max=1024)}, {0: DimHint(AUTO)})
def forward(self, x, y):
    h = x
    h = h.relu()
    h = h.reshape(-1)
    torch._check(h.shape[0] <= 4)
    h = h.unsqueeze(0)
    h = h.view(h.shape[0], -1)
    return h
