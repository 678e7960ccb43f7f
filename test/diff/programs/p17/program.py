# seed 17; dynamic_shapes: ({0: DimHint(DYNAMIC), 1: DimHint(AUTO), 2: DimHint(DYNAMIC)}, {0: DimHint(STATIC)})
def forward(self, x, y):
    h = x
    torch._check(h.shape[0] <= 5)
    h = h @ self.w0
    h = h.narrow(-1, 0, 3)
    h = torch.cat([h, h], dim=0)
    return h
