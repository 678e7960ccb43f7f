# seed 1013; dynamic_shapes: ({0: Dim('d0_0', min=0)},)
def forward(self, x):
    h = x
    h = torch.cat([h, h], dim=0)
    h = torch.cat([h, h], dim=0)
    h = h.relu()
    return h
