# seed 30080; dynamic_shapes: (None,)
def forward(self, x):
    h = x
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = torch.cat([h, h], dim=0)
    h = h.narrow(-1, 0, 2)
    h = h * 0.5
    return h
