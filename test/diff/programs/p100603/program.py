# seed 100603; dynamic_shapes: {'x': {0: Dim('d0', min=0)}, 'xs': [{0: DimHint(AUTO), 1: DimHint(STATIC)}, {0: 2*r1 + 1}]}
# families: check, conv, if, unbacked; inputs: list wrong
def forward(self, x, xs):
    h = x
    if h.numel() > 64:
        h = h.relu()
    if h.shape[0] == xs[1].shape[0]:
        h = h * 2
    h = h.reshape(1, 1, -1)
    h = torch.nn.functional.max_pool1d(h, 1, stride=1, padding=0)
    torch._check(h.shape[0] != 2)
    return h
