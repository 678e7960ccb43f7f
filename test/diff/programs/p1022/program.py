# seed 1022; dynamic_shapes: ({0: Dim('s5', min=1, max=29)},)
def forward(self, x):
    h = x
    h = torch.cat([h, h], dim=0)
    return h
