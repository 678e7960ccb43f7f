# seed 216; dynamic_shapes: ({0: Dim('s8', min=0, max=37)}, None)
def forward(self, x, y):
    h = x
    h = h * -1
    h = h.relu()
    h = h + y
    h = torch.cat([h, h], dim=0)
    h = h.reshape(-1)
    return h
