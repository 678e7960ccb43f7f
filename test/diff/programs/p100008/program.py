# seed 100008; dynamic_shapes: {'x': {0: 2*r0 + 1}, 'xs': ({0: DimHint(AUTO), 1: DimHint(AUTO)}, {0: DimHint(AUTO)})}
# families: matmul, pad, unbacked; inputs: tuple wrong
def forward(self, x, xs):
    h = x
    u = (h > 0).sum().item()
    torch._check(u >= 0)
    torch._check(u <= h.shape[0])
    h = h[:u]
    h = h.sum(0, keepdim=True)
    h = h.nonzero().float()
    return h
