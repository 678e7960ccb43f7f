# seed 100073; dynamic_shapes: {'x': {0: 2*r0 + 1}}
# families: cat, matmul; inputs: none
def forward(self, x):
    h = x
    h = torch.stack([h, h * 2], dim=0)
    h = torch.stack([h, h * 2], dim=0)
    h = h @ h.transpose(-1, -2)
    h = torch.stack([h, h * 2], dim=0)
    return h
