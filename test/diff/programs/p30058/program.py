# seed 30058; dynamic_shapes: ({0: Dim('d0_0', min=0, max=1024)}, {'y': None}, DimHint(DYNAMIC))
def forward(self, x, d, n):
    y = d["y"]
    h = x
    h = h * n + n
    u = (h > 0).sum().item()
    h = h.sum() + torch.ones(u, 2)
    if h.shape[0] % 2 == 0:
        h = h * 3
    h = h.relu()
    h = h * 2
    return h
