# seed 101122; dynamic_shapes: {'x': {0: Dim('s0', min=0, max=64)}}
# families: check, expand, repeat, split; inputs: none
def forward(self, x):
    h = x
    h = h.chunk(3, dim=0)[0]
    torch._check(h.shape[0] % 2 == 0)
    h = h[:1].expand(2)
    h = h.unbind(0)[0]
    h = h.reshape(1)
    h = h[:1].expand(3)
    return h
