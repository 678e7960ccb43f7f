# seed 30039; dynamic_shapes: ({0: DimHint(AUTO), 2: Dim('d0_2', min=0, max=1024)}, {0: DimHint(DYNAMIC)}, DimHint(AUTO))
def forward(self, x, y, n):
    h = x
    torch._check(h.shape[1] != 3)
    u = (h > 0).sum().item()
    h = h[:u]
    h = h * 2
    h = h @ self.w0
    return h
