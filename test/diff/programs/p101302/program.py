# seed 101302; dynamic_shapes: {'x': {0: Dim('d0', min=1, max=11)}, 'd': {'a': {0: Dim('d1', min=0)}}}
# families: check, index, view; inputs: dict
def forward(self, x, d):
    h = x
    torch._check(h.shape[0] != 3)
    h = h.unflatten(0, (2, -1))
    torch._check(h.shape[0] % 2 == 0)
    h = torch.gather(h, -1, torch.zeros(*h.shape[:-1], 1, dtype=torch.long))
    torch._check(h.shape[0] <= 5)
    return h
