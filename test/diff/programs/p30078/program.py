# seed 30078; dynamic_shapes: ({0: Dim('s5', min=0), 1: Dim('d0_1', min=1, max=36), 2: DimHint(AUTO)}, None)
def forward(self, x, n):
    h = x
    h = h * n + n
    h = torch.cat([h, h], dim=0)
    return h
