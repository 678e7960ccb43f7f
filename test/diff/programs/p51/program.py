# seed 51; dynamic_shapes: ({0: Dim('d0_0', min=4, max=29)},)
def forward(self, x):
    h = x
    torch._check(h.shape[0] != 3)
    h = h.unsqueeze(0)
    h = h.unsqueeze(0)
    return h
