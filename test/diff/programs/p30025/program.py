# seed 30025; dynamic_shapes: ({0: DimHint(AUTO), 1: DimHint(STATIC), 2: Dim('s6', min=0, max=16)},)
def forward(self, x):
    h = x
    h = h.sum(-1)
    h = h.transpose(0, 1)
    h = h.unsqueeze(0)
    if h.shape[0] > 7:
        h = h + 1
    else:
        h = h - 1
    h = torch.cat([h, h], dim=0)
    return h
