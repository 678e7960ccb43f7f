# seed 1054; dynamic_shapes: ({0: Dim('d0_0', max=30)}, None)
def forward(self, x, n):
    h = x
    h = h[:n]
    h = h * n + n
    h = h.narrow(-1, 0, 3)
    h = h[:1]
    torch._check(h.shape[0] >= 1)
    return h
