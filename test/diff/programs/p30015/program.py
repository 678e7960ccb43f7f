# seed 30015; dynamic_shapes: ({0: DimHint(AUTO), 1: DimHint(STATIC)}, {0: DimHint(AUTO)})
def forward(self, x, y):
    h = x
    u = (h > 0).sum().item()
    h = h.narrow(0, 0, u)
    h = torch.cat([h, h], dim=0)
    h = h * 2
    h = h @ self.w0
    return h
