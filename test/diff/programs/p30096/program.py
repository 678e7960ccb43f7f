# seed 30096; dynamic_shapes: ({1: Dim('d0_1', min=1)}, {'y': {0: Dim('d1_0')}})
def forward(self, x, d):
    y = d["y"]
    h = x
    h = h.view(h.shape[0], -1)
    u = (h > 0).sum().item()
    h = h.sum() + torch.ones(u, 2)
    h = h.sum(-1)
    return h
