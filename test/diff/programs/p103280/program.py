# seed 103280; dynamic_shapes: {'x': {0: DimHint(AUTO), 1: DimHint(DYNAMIC), 2: DimHint(AUTO)}, 'xs': [{0: Dim('d0'), 1: DimHint(DYNAMIC)}, {0: DimHint(DYNAMIC)}]}
# families: cat, check, narrow, view; inputs: list
def forward(self, x, xs):
    h = x
    h = h.view(h.shape[0], -1)
    torch._check(h.shape[1] == xs[1].shape[0])
    h = torch.cat([h, h[:, :1]], dim=1)
    h = h.narrow(0, 1, h.shape[0] - 2)
    return h
