# seed 1081; dynamic_shapes: ({0: Dim('d0_0', max=1024)},)
def forward(self, x):
    h = x
    h = h.transpose(0, 1)
    if h.shape[0] % 2 == 0:
        h = h * 3
    torch._check(h.shape[0] >= 5)
    if h.shape[0] % 2 == 0:
        h = h * 3
    return h
