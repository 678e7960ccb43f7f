# seed 30069; dynamic_shapes: ({0: Dim('d0_0', min=0, max=1024)},)
def forward(self, x):
    h = x
    torch._check(h.shape[0] >= 1)
    u = (h > 0).sum().item()
    h = h.narrow(0, 0, u)
    return h
