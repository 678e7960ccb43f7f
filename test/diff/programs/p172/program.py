# seed 172; dynamic_shapes: ({0: DimHint(AUTO), 1: Dim('s3', min=1)}, {0: Dim('d1_0', min=0)})
def forward(self, x, y):
    h = x
    h = h.unsqueeze(0)
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h.unsqueeze(0)
    h = h + y
    h = torch.cat([h, h], dim=0)
    return h
