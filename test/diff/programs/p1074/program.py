# seed 1074; dynamic_shapes: ({0: Dim('s5', max=16), 1: Dim('d0_1', min=0, max=1024), 2: Dim('d0_2', min=1, max=33)},)
def forward(self, x):
    h = x
    h = h.sum(-1)
    h = h @ self.w0
    return h
