# seed 72; dynamic_shapes: (None,)
def forward(self, x):
    h = x
    h = torch.cat([h, h], dim=0)
    h = h.reshape(-1)
    h = h.narrow(-1, 0, 6)
    return h
