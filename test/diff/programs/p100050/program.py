# seed 100050; dynamic_shapes: {'x': {0: Dim('d0', min=3, max=22), 1: DimHint(AUTO), 2: DimHint(AUTO)}, 'n': None}
# families: int, matmul; inputs: none
def forward(self, x, n):
    h = x
    h = h @ self.w0
    h = h * n + n
    h = h.repeat(n, 1, 1)
    h = h @ self.w1
    h = h * n + n
    return h
