# seed 67; dynamic_shapes: ({0: DimHint(STATIC)},)
def forward(self, x):
    h = x
    h = h @ self.w0
    h = h.narrow(-1, 0, 4)
    h = h.unsqueeze(0)
    h = torch.cat([h, h], dim=0)
    h = h.flatten(1)
    return h
