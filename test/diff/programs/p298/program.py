# seed 298; dynamic_shapes: ({0: Dim('s6', max=1024)},)
def forward(self, x):
    h = x
    h = h.narrow(-1, 0, 2)
    h = torch.cat([h, h], dim=0)
    h = h.unsqueeze(0)
    return h
