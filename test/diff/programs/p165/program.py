# seed 165; dynamic_shapes: ({0: DimHint(STATIC)},)
def forward(self, x):
    h = x
    h = h * 0.5
    torch._check(h.shape[0] != 1)
    h = torch.cat([h, h], dim=0)
    h = h.narrow(-1, 0, 4)
    h = h.relu()
    return h
