# seed 1010; dynamic_shapes: ({0: Dim('s6', min=4, max=1024), 1: DimHint(AUTO), 2: DimHint(AUTO)}, {'y': {1: DimHint(DYNAMIC)}})
def forward(self, x, d):
    y = d["y"]
    h = x
    h = h.transpose(0, 1)
    h = torch.cat([h, h], dim=0)
    h = h.unsqueeze(0)
    if h.shape[0] > 7:
        h = h + 1
    else:
        h = h - 1
    return h
