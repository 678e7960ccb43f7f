# seed 139; dynamic_shapes: (None,)
def forward(self, x):
    h = x
    h = h.reshape(-1)
    h = h.relu()
    h = h.reshape(-1)
    h = torch.cat([h, h], dim=0)
    return h
