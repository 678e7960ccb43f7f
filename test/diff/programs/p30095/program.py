# seed 30095; dynamic_shapes: ({0: DimHint(AUTO), 1: DimHint(AUTO), 2: Dim('s3', min=1, max=18)},)
def forward(self, x):
    h = x
    h = h @ self.w0
    u = (h > 0).sum().item()
    h = h.narrow(0, 0, u)
    h = h * 2
    torch._check(h.shape[0] <= 8)
    return h
