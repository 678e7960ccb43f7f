# seed 231; dynamic_shapes: ({0: Dim('d0_0', min=0)},)
def forward(self, x):
    h = x
    h = h.narrow(-1, 0, 1)
    torch._check(h.shape[0] <= 1)
    h = torch.cat([h, h], dim=0)
    h = h.narrow(-1, 0, 2)
    return h
