# seed 1067; dynamic_shapes: ({0: Dim('d0_0', min=0)}, DimHint(DYNAMIC))
def forward(self, x, n):
    h = x
    h = h[:n]
    h = torch.cat([h, h], dim=0)
    return h
