# seed 100034; dynamic_shapes: {'x': {0: DimHint(AUTO), 1: DimHint(AUTO)}, 'y': {0: DimHint(AUTO)}}
# families: expand, if, narrow, repeat, unbacked; inputs: y
def forward(self, x, y):
    h = x
    if h.shape[1] > 6:
        h = h + 1
    else:
        h = h - 1
    h = h[h > 0]
    h = torch.cat([h, h], dim=0)
    h = h.relu() * 2
    return h
