# seed 100097; dynamic_shapes: {'x': {0: DimHint(AUTO), 1: DimHint(DYNAMIC)}, 'k': {0: DimHint(AUTO)}}
# families: if, matmul, split, view; inputs: none wrong
def forward(self, x, *, k):
    x = x + k
    h = x
    h = h.reshape(-1, h.shape[-1])
    h = h @ self.w0
    h = torch.split(h, 2, dim=0)[-1]
    h = torch.split(h, 2, dim=0)[-1]
    return h
