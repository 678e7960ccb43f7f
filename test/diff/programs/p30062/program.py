# seed 30062; dynamic_shapes: ({0: Dim('d0_0', min=1, max=1024)}, {'y': {0: Dim('d1_0')}})
def forward(self, x, d):
    y = d["y"]
    h = x
    h = h + y
    h = torch.cat([h, h], dim=0)
    h = h @ self.w0
    return h
