# seed 1001; dynamic_shapes: ({0: DimHint(AUTO)}, None)
def forward(self, x, n):
    h = x
    h = h * n + n
    h = torch.cat([h, h], dim=0)
    h = h.narrow(-1, 0, 6)
    h = h * n + n
    h = h @ self.w0
    return h
