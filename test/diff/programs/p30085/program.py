# seed 30085; dynamic_shapes: ({0: Dim('d0_0', min=1, max=1024)}, None)
def forward(self, x, n):
    h = x
    h = torch.cat([h, h], dim=0)
    h = torch.cat([h, h], dim=0)
    h = h @ self.w0
    if h.shape[0] > 3:
        h = h + 1
    else:
        h = h - 1
    return h
