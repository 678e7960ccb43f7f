# seed 100020; dynamic_shapes: {'x': {0: Dim('s0', min=0, max=1024)}}
# families: cat, if; inputs: none wrong
def forward(self, x):
    h = x
    h = torch.cat([h, h[:1]], dim=0)
    h = torch.stack([h, h * 2], dim=0)
    h = torch.cat([h, h[:, :1]], dim=1)
    if h.shape[0] % 2 == 0:
        h = h * 3
    return h
