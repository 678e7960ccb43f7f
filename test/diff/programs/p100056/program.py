# seed 100056; dynamic_shapes: {'x': {0: DimHint(DYNAMIC)}}
# families: index, narrow, pad, unbacked; inputs: none wrong
def forward(self, x):
    h = x
    h = h.flip(0)
    h = h.nonzero().float()
    h = h.relu() * 2
    return h
